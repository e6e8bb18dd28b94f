package markconsole

import (
	"fmt"
	"os"
)

// Option configures the console.
type Option func(*options) error

type options struct {
	noColor bool
	dark    bool
	queue   bool // work through the queue: n and a saved session's last mark move on
}

func defaultOptions() options {
	return options{noColor: os.Getenv("NO_COLOR") != "", dark: true}
}

// WithNoColor renders without colour (NO_COLOR sets it too).
func WithNoColor(nc bool) Option { return func(o *options) error { o.noColor = nc; return nil } }

// WithDark picks the palette's dark (true) or light variants.
func WithDark(dark bool) Option { return func(o *options) error { o.dark = dark; return nil } }

// WithQueue makes the console work through the backend's queue: it opens the first session
// and n moves to the next.
func WithQueue(q bool) Option { return func(o *options) error { o.queue = q; return nil } }

func checkBackend(b Backend) error {
	if b == nil {
		return fmt.Errorf("%w: nil backend", ErrInvalidOption)
	}
	return nil
}
