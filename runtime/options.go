package runtime

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/examtui/examtui/spec/lang"
)

// DefaultTurnTimeout bounds one examiner call.
const DefaultTurnTimeout = 30 * time.Second

type options struct {
	clock       Clock
	sessionID   string
	sink        Sink
	log         *slog.Logger
	turnTimeout time.Duration
	resume      []Event
	resumeSet   bool
	inputSource InputSource
	maxMessages int
	maxTokens   int
	// failover.go
	fallback      Examiner
	failoverAfter int
	failoverWait  time.Duration
	holdAfter     time.Duration
	// gateOverrides are BOT_* rehearsal overrides of the spec's gates (botenv.go).
	gateOverrides *GateOverrides
	// variant.go
	variants VariantCounter
	pins     map[string]string
	seed     uint64
	seedSet  bool
	vocab    *Vocabulary // vocabulary.go; nil: the one built from the exam's pack
	// language.go
	packs *lang.Registry
}

// Option configures a Controller.
type Option func(*options) error

// WithClock sets the clock (default the system clock).
func WithClock(c Clock) Option {
	return func(o *options) error {
		if c == nil {
			return fmt.Errorf("%w: nil clock", ErrInvalidOption)
		}
		o.clock = c
		return nil
	}
}

// WithSessionID sets the session id carried by every event.
func WithSessionID(id string) Option {
	return func(o *options) error {
		if id == "" {
			return fmt.Errorf("%w: empty session id", ErrInvalidOption)
		}
		o.sessionID = id
		return nil
	}
}

// WithSink sets where events go (a store, or a Fanout). Without one, events are only counted.
func WithSink(s Sink) Option {
	return func(o *options) error {
		if s == nil {
			return fmt.Errorf("%w: nil sink", ErrInvalidOption)
		}
		o.sink = s
		return nil
	}
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidOption)
		}
		o.log = l
		return nil
	}
}

// WithTurnTimeout bounds each examiner call (default DefaultTurnTimeout).
func WithTurnTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("%w: turn timeout %v", ErrInvalidOption, d)
		}
		o.turnTimeout = d
		return nil
	}
}

// WithResume rebuilds the controller's state from a stored event log (node, timers, counts,
// ledger, context); seq continues after the last event. Timers stand where the last stored
// event left them: time after it (quiet ticking, the process being down) does not count
// against any budget.
func WithResume(events []Event) Option {
	return func(o *options) error {
		o.resume = events
		o.resumeSet = true
		return nil
	}
}

// WithInputSource sets the default source of candidate turns: typed, mic or room.
func WithInputSource(src InputSource) Option {
	return func(o *options) error {
		switch src {
		case SourceTyped, SourceMic, SourceRoom:
			o.inputSource = src
			return nil
		}
		return fmt.Errorf("%w: input source %q (want typed, mic or room)", ErrInvalidOption, src)
	}
}

// WithContextBudget sets the in-node history budget before it is summarised (defaults 10
// messages, 4000 estimated tokens).
func WithContextBudget(messages, tokens int) Option {
	return func(o *options) error {
		if messages < keepRecentMessages+1 || tokens < 100 {
			return fmt.Errorf("%w: context budget %d messages / %d tokens", ErrInvalidOption, messages, tokens)
		}
		o.maxMessages, o.maxTokens = messages, tokens
		return nil
	}
}
