package tui

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/examtui/examtui/spec/examgraph"
)

// Option configures a console.
type Option func(*options) error

type options struct {
	clock      func() time.Time
	eventClock bool
	noColor    bool
	dark       bool
	forceDark  bool // the background was given, do not ask the terminal
	palette    Palette
	minConf    float64
	logger     *slog.Logger
	keys       KeyMap
	tick       time.Duration
	audio      <-chan AudioLevelMsg

	graph *examgraph.Graph // WithExamGraph (graph.go)

	replay      Replayer
	replayTotal int64
}

func defaultOptions() options {
	return options{
		clock:   time.Now,
		noColor: os.Getenv("NO_COLOR") != "",
		dark:    true,
		palette: DefaultPalette(),
		minConf: 0.5,
		logger:  slog.New(slog.DiscardHandler),
		keys:    DefaultKeyMap(),
		tick:    time.Second,
	}
}

// WithClock sets the clock the timers are read against (tests, replays at a chosen instant).
func WithClock(now func() time.Time) Option {
	return func(o *options) error {
		if now == nil {
			return fmt.Errorf("%w: nil clock", ErrInvalidOption)
		}
		o.clock = now
		return nil
	}
}

// WithEventClock reads the timers at the timestamp of the latest event instead of the wall
// clock: right for replays, where events arrive faster or slower than they happened.
func WithEventClock() Option {
	return func(o *options) error { o.eventClock = true; return nil }
}

// WithNoColor forces (or forbids) colourless styles; by default NO_COLOR decides.
func WithNoColor(noColor bool) Option {
	return func(o *options) error { o.noColor = noColor; return nil }
}

// WithDarkBackground fixes the background instead of asking the terminal.
func WithDarkBackground(dark bool) Option {
	return func(o *options) error { o.dark, o.forceDark = dark, true; return nil }
}

// WithPalette replaces the colour theme.
func WithPalette(p Palette) Option {
	return func(o *options) error { o.palette = p; return nil }
}

// WithSTTMinConfidence sets the confidence under which a spoken turn is marked low (the exam's
// sttMinConfidence policy; default 0.5).
func WithSTTMinConfidence(v float64) Option {
	return func(o *options) error {
		if v < 0 || v > 1 {
			return fmt.Errorf("%w: sttMinConfidence %v outside 0..1", ErrInvalidOption, v)
		}
		o.minConf = v
		return nil
	}
}

// WithLogger sets where the console logs (decode failures, backend errors). Never stdout: the
// console owns the terminal.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidOption)
		}
		o.logger = l
		return nil
	}
}

// WithKeyMap replaces the key bindings.
func WithKeyMap(k KeyMap) Option {
	return func(o *options) error { o.keys = k; return nil }
}

// WithTickInterval sets how often the clocks are redrawn (default 1 s; zero disables ticking,
// for tests that must not redraw on their own).
func WithTickInterval(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 {
			return fmt.Errorf("%w: negative tick interval", ErrInvalidOption)
		}
		o.tick = d
		return nil
	}
}

// WithAudioLevels gives the status line an audio meter fed from ch; Run's bridge forwards it.
// The audio engine owns ch and closes it when capture stops.
func WithAudioLevels(ch <-chan AudioLevelMsg) Option {
	return func(o *options) error { o.audio = ch; return nil }
}
