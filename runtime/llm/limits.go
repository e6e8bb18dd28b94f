package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// An endpoint can fail in ways that retries do not fix: it accepts the request and never
// answers, or answers with megabytes. The first-token timeout and the body cap turn both into
// quick, named failures, so that the controller's failover (runtime.WithExaminerFailover) can
// move the exam on instead of the candidate waiting in silence.

// Defaults for the limits.
const (
	// DefaultFirstTokenTimeout bounds the wait for the first streamed chunk of an attempt.
	DefaultFirstTokenTimeout = 5 * time.Second
	// DefaultMaxReplyBytes caps one response body; a report_observation is a few kilobytes.
	DefaultMaxReplyBytes = 1 << 20
)

var (
	// ErrFirstToken is an attempt whose stream sent nothing within the first-token timeout. It
	// is not retried: an endpoint that hangs once usually hangs again.
	ErrFirstToken = errors.New("llm: no first token in time")
	// ErrStalled is an attempt whose stream went silent for the first-token timeout after its
	// first chunk. Like a hang it is not retried: the candidate has waited already.
	ErrStalled = errors.New("llm: stream stalled")
	// ErrTooLarge is a response body over the cap. It is not retried.
	ErrTooLarge = errors.New("llm: response too large")
)

// WithFirstTokenTimeout bounds the wait for the first streamed chunk of each attempt (default
// DefaultFirstTokenTimeout). It applies to streaming only; without streaming the request
// timeout and the turn deadline bound the wait.
func WithFirstTokenTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: first-token timeout %v", ErrInvalidOption, d)
		}
		c.firstToken = d
		return nil
	}
}

// WithMaxReplyBytes caps one response body (default DefaultMaxReplyBytes, at least 4 KiB).
func WithMaxReplyBytes(n int64) Option {
	return func(c *config) error {
		if n < 4<<10 {
			return fmt.Errorf("%w: max reply bytes %d (want at least 4096)", ErrInvalidOption, n)
		}
		c.maxReplyBytes = n
		return nil
	}
}

// errBodyCap is what a capped body returns once the cap is passed; go-openai may or may not wrap
// it, so Observe checks for it in the error chain and in the attempt's meta.
var errBodyCap = fmt.Errorf("%w: body over the cap", ErrTooLarge)

// cappedBody fails reads past max bytes.
type cappedBody struct {
	io.ReadCloser
	left int64
	meta *respMeta
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		if b.meta != nil {
			b.meta.tooLarge = true
		}
		return 0, errBodyCap
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// capBody wraps resp's body when the request carries a cap.
func capBody(r *http.Request, resp *http.Response, meta *respMeta) {
	limit, ok := r.Context().Value(capKey{}).(int64)
	if !ok || resp == nil || resp.Body == nil {
		return
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: limit, meta: meta}
}

type capKey struct{}

func withCap(ctx context.Context, n int64) context.Context {
	return context.WithValue(ctx, capKey{}, n)
}

// firstTokenWatch cancels ctx unless seen is called within d, and again within d of each
// call: with ErrFirstToken before the first chunk, with ErrStalled after it. One rule bounds
// every silence of a stream, so a stream that stalls after its first token fails as quickly
// as one that never starts, instead of holding the candidate until the request timeout.
type firstTokenWatch struct {
	d       time.Duration
	timer   *time.Timer
	started atomic.Bool
}

func watchFirstToken(ctx context.Context, d time.Duration) (context.Context, *firstTokenWatch, context.CancelFunc) {
	cctx, cancel := context.WithCancelCause(ctx)
	w := &firstTokenWatch{d: d}
	w.timer = time.AfterFunc(d, func() {
		if w.started.Load() {
			cancel(fmt.Errorf("%w: nothing for %v", ErrStalled, d))
			return
		}
		cancel(fmt.Errorf("%w (%v)", ErrFirstToken, d))
	})
	return cctx, w, func() { w.timer.Stop(); cancel(nil) }
}

// seen records a chunk: the next one is due within d.
func (w *firstTokenWatch) seen() {
	w.started.Store(true)
	w.timer.Reset(w.d)
}
