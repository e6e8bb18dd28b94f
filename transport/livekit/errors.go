package livekit

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
)

// Named errors.
var (
	ErrUnknownRole      = errors.New("unknown role")
	ErrInvalidConfig    = errors.New("invalid livekit configuration")
	ErrInvalidMessage   = errors.New("invalid data message")
	ErrClosed           = errors.New("room closed")
	ErrNotConnected     = errors.New("not connected to the room")
	ErrEventTooLarge    = errors.New("event larger than a data packet")
	ErrWrongRole        = errors.New("participant role not allowed for this message")
	ErrUnknownSender    = errors.New("sender not known to the room")
	ErrCandidateMissing = errors.New("no candidate in the room")
	ErrNoSpeech         = errors.New("the bot was joined without speech (WithoutSpeech)")
	// ErrNoReceipt: a message was sent but the bot did not confirm it in time (receipt.go).
	ErrNoReceipt = errors.New("the examiner bot did not confirm the message")
	// ErrRefused: the bot refused a message (its receipt says why).
	ErrRefused = errors.New("the examiner bot refused the message")
	// ErrNoServer: nothing answers at the server URL (refused, unknown host, unreachable).
	ErrNoServer = errors.New("no LiveKit server answers")
)

// NoServerError is a join that found no server at URL: what a newcomer meets first, so it
// says how to start one rather than quoting the HTTP request that failed.
type NoServerError struct {
	URL   string
	Cause error
}

func (e *NoServerError) Error() string {
	return fmt.Sprintf("%v at %s (%s): start one with `bin/livekit-server --dev --bind 127.0.0.1` "+
		"(`make tools` builds it; docs/livekit.md), or point --url or LIVEKIT_URL at yours", ErrNoServer, e.URL, dialCause(e.Cause))
}

func (e *NoServerError) Unwrap() []error { return []error{ErrNoServer, e.Cause} }

// noServer recognises a join error that reached no server at all, and words it as one.
func noServer(url string, err error) error {
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &dns) || (errors.As(err, &op) && op.Op == "dial") || errors.Is(err, syscall.ECONNREFUSED) {
		return &NoServerError{URL: url, Cause: err}
	}
	return nil
}

// dialCause is the last part of a dial error ("connection refused", "no such host").
func dialCause(err error) string {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "unknown host " + dns.Name
	}
	var sys syscall.Errno
	if errors.As(err, &sys) {
		return sys.Error()
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// SpeechInterruptedError is a Speaker's line cut short (a barge-in, a stop, an examiner's
// command): Heard is the part the candidate heard.
type SpeechInterruptedError struct{ Heard string }

func (e *SpeechInterruptedError) Error() string {
	return fmt.Sprintf("speech interrupted after %q", e.Heard)
}
