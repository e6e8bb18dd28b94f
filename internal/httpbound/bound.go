// Package httpbound is the one bounded reader for the HTTP replies examtui reads: every client it
// builds for a model server (LLM, STT, TTS, the marking panel, doctor's checks) or for the
// LiveKit server API caps the reply's size by kind and bounds the whole exchange, headers and
// body, by the stage's timeout. A reply over the cap, or one that trickles or hangs past the
// timeout, fails with an error naming the endpoint and the limit, instead of growing the
// process's memory or holding a candidate for ever.
//
// It imports only the standard library, so the layers that may import nothing of ours (audio,
// runtime) take its clients from the wiring.
package httpbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Kind is what a reply carries; it sets the default size cap and timeout.
type Kind int

// The kinds of reply.
const (
	KindUnknown Kind = iota
	KindLLM          // a chat completion, streamed or not
	KindSTT          // a transcription (verbose JSON)
	KindTTS          // speech audio (WAV)
	KindPanel        // a panel member's marks (a chat completion)
	KindLiveKit      // a LiveKit server API reply (rooms, participants, dispatches)
)

// String is the kind's name as logs and errors show it.
func (k Kind) String() string {
	switch k {
	case KindLLM:
		return "llm"
	case KindSTT:
		return "stt"
	case KindTTS:
		return "tts"
	case KindPanel:
		return "panel"
	case KindLiveKit:
		return "livekit"
	}
	return "unknown"
}

// The size caps, by kind (docs/operations.md lists them).
const (
	MaxLLMBytes     = 1 << 20  // a report_observation is a few kilobytes; streamed, some tens
	MaxSTTBytes     = 1 << 20  // a transcription of one answer, with its segments
	MaxTTSBytes     = 16 << 20 // over five minutes of 24 kHz 16-bit mono WAV
	MaxPanelBytes   = 1 << 20  // one member's marks with their citations
	MaxLiveKitBytes = 8 << 20  // the rooms and participants of a busy server
)

// The timeouts, by kind, when the stage sets none of its own.
const (
	LLMTimeout     = 20 * time.Second
	STTTimeout     = 30 * time.Second
	TTSTimeout     = 30 * time.Second
	PanelTimeout   = 60 * time.Second
	LiveKitTimeout = 10 * time.Second
)

// MaxBytes is the kind's size cap.
func (k Kind) MaxBytes() int64 {
	switch k {
	case KindLLM:
		return MaxLLMBytes
	case KindSTT:
		return MaxSTTBytes
	case KindTTS:
		return MaxTTSBytes
	case KindPanel:
		return MaxPanelBytes
	case KindLiveKit:
		return MaxLiveKitBytes
	}
	return MaxLLMBytes
}

// Timeout is the kind's default timeout for one exchange, body included.
func (k Kind) Timeout() time.Duration {
	switch k {
	case KindLLM:
		return LLMTimeout
	case KindSTT:
		return STTTimeout
	case KindTTS:
		return TTSTimeout
	case KindPanel:
		return PanelTimeout
	case KindLiveKit:
		return LiveKitTimeout
	}
	return LLMTimeout
}

var (
	// ErrTooLarge is a reply whose body passed the kind's cap.
	ErrTooLarge = errors.New("reply too large")
	// ErrTimeout is an exchange (headers and body) that took longer than its timeout.
	ErrTimeout = errors.New("reply not complete in time")
	// ErrInvalidOption is an option with a value out of range.
	ErrInvalidOption = errors.New("httpbound: invalid option")
)

type config struct {
	max     int64
	timeout time.Duration
}

// Option changes a bound.
type Option func(*config) error

// WithMaxBytes sets the size cap (at least 1 KiB).
func WithMaxBytes(n int64) Option {
	return func(c *config) error {
		if n < 1<<10 {
			return fmt.Errorf("%w: max bytes %d (want at least 1024)", ErrInvalidOption, n)
		}
		c.max = n
		return nil
	}
}

// WithTimeout sets the timeout of one exchange, body included; 0 keeps the kind's default.
func WithTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("%w: timeout %v", ErrInvalidOption, d)
		}
		if d > 0 {
			c.timeout = d
		}
		return nil
	}
}

// plain is Go's default transport as the process started, before BoundDefaultTransport: the base
// of every bounded client, so that no reply is bounded twice with different limits.
var plain = http.DefaultTransport

// BoundDefaultTransport makes Go's default transport a bounded one of kind KindLiveKit: the
// LiveKit server SDK builds its API clients (rooms, participants, agent dispatches) on it and
// takes no client of ours, and any other library using the default is bounded the same way.
// The binary calls it once at start, before any client is built.
func BoundDefaultTransport() {
	t, _ := Transport(KindLiveKit, plain) // no options: cannot fail
	http.DefaultTransport = t
}

// Transport wraps base (Go's default transport when nil) so that every reply of kind k is bounded.
func Transport(k Kind, base http.RoundTripper, opts ...Option) (http.RoundTripper, error) {
	c := config{max: k.MaxBytes(), timeout: k.Timeout()}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	if base == nil {
		base = plain
	}
	return &transport{kind: k, base: base, cfg: c}, nil
}

// Client is a copy of base (a fresh client when nil) whose transport bounds every reply of kind k.
// The client's own Timeout, if any, stays.
func Client(k Kind, base *http.Client, opts ...Option) (*http.Client, error) {
	var c http.Client
	if base != nil {
		c = *base
	}
	t, err := Transport(k, c.Transport, opts...)
	if err != nil {
		return nil, err
	}
	c.Transport = t
	return &c, nil
}

// MustClient is Client with the kind's defaults and an optional timeout, which cannot fail for
// a timeout of zero or more.
func MustClient(k Kind, base *http.Client, timeout time.Duration) *http.Client {
	c, err := Client(k, base, WithTimeout(max(timeout, 0)))
	if err != nil {
		panic(err) // unreachable: the options are in range
	}
	return c
}

type transport struct {
	kind Kind
	base http.RoundTripper
	cfg  config
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	where := r.URL.Host + r.URL.Path
	ctx, cancel := context.WithTimeoutCause(r.Context(), t.cfg.timeout,
		fmt.Errorf("%w: the %s reply from %s took over %v", ErrTimeout, t.kind, where, t.cfg.timeout))
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		err = t.cause(ctx, err)
		cancel()
		return nil, err
	}
	resp.Body = &body{rc: resp.Body, left: t.cfg.max, ctx: ctx, cancel: cancel, t: t, where: where}
	return resp, nil
}

// cause is the timeout's own error when the exchange's deadline (not the caller's) ended it.
func (t *transport) cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && errors.Is(c, ErrTimeout) {
		return fmt.Errorf("%w (%w)", c, err)
	}
	return err
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the wrapped transport.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

type body struct {
	rc     io.ReadCloser
	left   int64
	ctx    context.Context
	cancel context.CancelFunc
	t      *transport
	where  string
	err    error
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.left <= 0 {
		// One more byte tells a body of exactly the cap from one over it.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n == 0 && err != nil {
			return 0, b.fail(err)
		}
		b.err = fmt.Errorf("%w: the %s reply from %s passed %d bytes", ErrTooLarge, b.t.kind, b.where, b.t.cfg.max)
		b.cancel()
		return 0, b.err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if err != nil && err != io.EOF {
		err = b.fail(err)
	}
	return n, err
}

func (b *body) fail(err error) error {
	if err == io.EOF {
		return err
	}
	b.err = b.t.cause(b.ctx, err)
	return b.err
}

func (b *body) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}
