package roomcheck

import (
	"errors"
	"fmt"
	"time"
)

// Named errors.
var (
	// ErrInvalidOption is a harness option out of range (a zero or negative duration, no URL
	// or no credentials).
	ErrInvalidOption = errors.New("invalid room test option")
	// ErrFirstChunkTimeout means the examiner did not start replying within the reply timeout.
	ErrFirstChunkTimeout = errors.New("first-chunk timeout")
	// ErrTransport means the room connection failed: a dead or unreachable server, or a
	// participant that lost the connection and did not get it back.
	ErrTransport = errors.New("room transport failed")
	// ErrSpokenLanguage means a spoken room check of an exam whose language the harness's
	// recogniser (pocketsphinx, English) cannot hear.
	ErrSpokenLanguage = errors.New("the spoken room check hears English only")
)

// FirstChunkTimeoutError is a reply whose first audio did not come within the reply timeout.
// It is ErrFirstChunkTimeout (errors.Is) and unwraps to its cause: the transport error that was
// current when the wait ran out (the candidate's connection down), nil when the room was up and
// the examiner simply said nothing.
type FirstChunkTimeoutError struct {
	Timeout time.Duration
	Cause   error
}

func (e *FirstChunkTimeoutError) Error() string {
	msg := fmt.Sprintf("%s: the examiner did not send its first audio within %s (phase=first-chunk)", ErrFirstChunkTimeout, e.Timeout)
	if e.Cause != nil {
		msg += "; cause: " + e.Cause.Error()
	}
	return msg
}

// Is makes errors.Is(err, ErrFirstChunkTimeout) true.
func (e *FirstChunkTimeoutError) Is(target error) bool { return target == ErrFirstChunkTimeout }

// Unwrap is the cause, so errors.Is(err, ErrTransport) and errors.As reach it.
func (e *FirstChunkTimeoutError) Unwrap() error { return e.Cause }
