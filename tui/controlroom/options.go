package controlroom

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/tui"
)

// Named errors.
var (
	ErrInvalidOption = errors.New("invalid control room option")
)

// BackendFunc returns the console backend that controls one exam (the store's command channel,
// or a LiveKit room's examiner-commands topic).
type BackendFunc func(row *monitor.Row) (tui.Backend, error)

// LoadFunc reads an exam's events so far, to fill its console when it opens.
type LoadFunc func(ctx context.Context, sessionID string) ([]runtime.Event, error)

// LinkFunc makes a one-time join link for the candidate of an exam that runs in a LiveKit room
// (examtui serve's page); it runs outside Update.
type LinkFunc func(ctx context.Context, row *monitor.Row) (string, error)

// RevokeFunc revokes the join links of the candidate of an exam that runs in a LiveKit room, and
// the browsers they seated; it returns how many it revoked and runs outside Update.
type RevokeFunc func(ctx context.Context, row *monitor.Row) (int, error)

// Option configures the control room.
type Option func(*options) error

type options struct {
	backend   BackendFunc
	load      LoadFunc
	readOnly  bool
	quiet     bool
	noColor   bool
	dark      bool
	now       func() time.Time
	tick      time.Duration
	since     time.Time
	label     string
	link      LinkFunc
	revoke    RevokeFunc
	logger    *slog.Logger
	consoleOp []tui.Option
}

func defaultOptions() options {
	return options{noColor: os.Getenv("NO_COLOR") != "", dark: true, now: time.Now, tick: time.Second,
		logger: slog.New(slog.DiscardHandler)}
}

// WithBackend sets how an opened exam is controlled; without it (or with WithReadOnly) the
// console opens read-only.
func WithBackend(f BackendFunc) Option {
	return func(o *options) error { o.backend = f; return nil }
}

// WithLoader sets how an opened exam's history is read (required to open consoles).
func WithLoader(f LoadFunc) Option {
	return func(o *options) error {
		if f == nil {
			return fmt.Errorf("%w: nil loader", ErrInvalidOption)
		}
		o.load = f
		return nil
	}
}

// WithReadOnly makes the control room an observer's: consoles open without controls.
func WithReadOnly(ro bool) Option { return func(o *options) error { o.readOnly = ro; return nil } }

// WithQuiet stops the bell that rings once per new alert.
func WithQuiet(q bool) Option { return func(o *options) error { o.quiet = q; return nil } }

// WithNoColor forces colourless styles.
func WithNoColor(nc bool) Option { return func(o *options) error { o.noColor = nc; return nil } }

// WithClock sets the clock the budgets and the time-based alerts are read against.
func WithClock(now func() time.Time) Option {
	return func(o *options) error {
		if now == nil {
			return fmt.Errorf("%w: nil clock", ErrInvalidOption)
		}
		o.now = now
		return nil
	}
}

// WithTickInterval sets how often clocks and time-based alerts refresh (0: never, for tests).
func WithTickInterval(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 {
			return fmt.Errorf("%w: negative tick", ErrInvalidOption)
		}
		o.tick = d
		return nil
	}
}

// WithSince sets where the "finished today" section starts (default: local midnight).
func WithSince(t time.Time) Option { return func(o *options) error { o.since = t; return nil } }

// WithStoreLabel names the store in the status line.
func WithStoreLabel(s string) Option { return func(o *options) error { o.label = s; return nil } }

// WithLogger sets where the control room logs.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidOption)
		}
		o.logger = l
		return nil
	}
}

// WithConsoleOptions are passed to every exam console the control room opens.
func WithConsoleOptions(opts ...tui.Option) Option {
	return func(o *options) error { o.consoleOp = append(o.consoleOp, opts...); return nil }
}

// WithCandidateLink sets how the link key makes a candidate's join link; without it the key
// says how to configure one.
func WithCandidateLink(f LinkFunc) Option { return func(o *options) error { o.link = f; return nil } }

// WithRevokeLinks sets how the revoke key withdraws a candidate's join links; without it the key
// says there is no candidate server.
func WithRevokeLinks(f RevokeFunc) Option { return func(o *options) error { o.revoke = f; return nil } }
