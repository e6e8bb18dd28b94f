package sessions

import (
	"context"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/examtui/examtui/runtime"
)

// Replay speeds.
const (
	MinSpeed       = 0.5
	MaxSpeed       = 16.0
	DefaultGapCap  = 2 * time.Second
	DefaultSpeed   = 1.0
	replayMinDelay = time.Millisecond // below this an event is emitted at once
)

// Clock is what the Player waits on; tests drive a manual one instead of sleeping.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// PlayerOption configures a Player.
type PlayerOption func(*Player) error

// WithSpeed sets the initial speed (MinSpeed..MaxSpeed, default 1).
func WithSpeed(x float64) PlayerOption {
	return func(p *Player) error {
		if err := checkSpeed(x); err != nil {
			return err
		}
		p.speed = x
		return nil
	}
}

// WithGapCap caps the original time between two events (default 2 s), so a replay does not
// sit through a candidate's long silence; 0 keeps every gap.
func WithGapCap(d time.Duration) PlayerOption {
	return func(p *Player) error {
		if d < 0 {
			return fmt.Errorf("%w: negative gap cap %v", ErrInvalidOption, d)
		}
		p.gapCap = d
		return nil
	}
}

// WithClock sets the clock the player waits on (default the wall clock).
func WithClock(c Clock) PlayerOption {
	return func(p *Player) error {
		if c == nil {
			return fmt.Errorf("%w: nil clock", ErrInvalidOption)
		}
		p.clock = c
		return nil
	}
}

// WithStartPaused starts the player paused (Step or Resume to go on).
func WithStartPaused() PlayerOption {
	return func(p *Player) error {
		p.paused = true
		return nil
	}
}

func checkSpeed(x float64) error {
	if !(x >= MinSpeed && x <= MaxSpeed) {
		return fmt.Errorf("%w: speed %v (want %v to %v)", ErrInvalidOption, x, MinSpeed, MaxSpeed)
	}
	return nil
}

// Player re-emits a session's events at their original timing, scaled by a speed, with long
// gaps capped. It pulls events from an iterator, so starting a replay of a long session
// costs one page read, not the whole session. Control methods are safe from any goroutine.
type Player struct {
	events iter.Seq2[runtime.Event, error]
	clock  Clock
	gapCap time.Duration

	mu      sync.Mutex
	speed   float64
	paused  bool
	steps   int // events released by Step while paused
	emitted int64
	wake    chan struct{}
}

// NewPlayer returns a player over events (Store.Events, or SliceEvents for a slice).
func NewPlayer(events iter.Seq2[runtime.Event, error], opts ...PlayerOption) (*Player, error) {
	if events == nil {
		return nil, fmt.Errorf("%w: nil events", ErrInvalidOption)
	}
	p := &Player{events: events, clock: wallClock{}, gapCap: DefaultGapCap, speed: DefaultSpeed,
		wake: make(chan struct{}, 1)}
	for _, o := range opts {
		if err := o(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// SliceEvents adapts a slice to the iterator NewPlayer takes.
func SliceEvents(evs []runtime.Event) iter.Seq2[runtime.Event, error] {
	return func(yield func(runtime.Event, error) bool) {
		for _, ev := range evs {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func (p *Player) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Pause holds the next event until Resume or Step.
func (p *Player) Pause() {
	p.mu.Lock()
	p.paused = true
	p.mu.Unlock()
	p.poke()
}

// Resume continues at the current speed.
func (p *Player) Resume() {
	p.mu.Lock()
	p.paused, p.steps = false, 0
	p.mu.Unlock()
	p.poke()
}

// Step pauses the replay and releases exactly one more event, at once.
func (p *Player) Step() {
	p.mu.Lock()
	if !p.paused {
		p.paused, p.steps = true, 0
	}
	p.steps++
	p.mu.Unlock()
	p.poke()
}

// SetSpeed changes the speed, taking effect in the middle of a wait.
func (p *Player) SetSpeed(x float64) error {
	if err := checkSpeed(x); err != nil {
		return err
	}
	p.mu.Lock()
	p.speed = x
	p.mu.Unlock()
	p.poke()
	return nil
}

// State reports the speed, whether the player is paused and how many events it emitted.
func (p *Player) State() (speed float64, paused bool, emitted int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.speed, p.paused, p.emitted
}

// Run emits every event through emit, in order, at its replay time; it returns when the
// events run out (nil), emit or the event source fails, or ctx ends.
func (p *Player) Run(ctx context.Context, emit func(runtime.Event) error) error {
	var prev time.Time
	first := true
	for ev, err := range p.events {
		if err != nil {
			return err
		}
		var owed time.Duration // original-time gap still to wait
		if !first {
			owed = ev.Timestamp.Sub(prev)
			if p.gapCap > 0 && owed > p.gapCap {
				owed = p.gapCap
			}
		}
		first = false
		prev = ev.Timestamp
		if err := p.wait(ctx, owed); err != nil {
			return err
		}
		if err := emit(ev); err != nil {
			return err
		}
		p.mu.Lock()
		p.emitted++
		p.mu.Unlock()
	}
	return nil
}

// wait blocks for owed original time at the current speed, honouring pause, step and speed
// changes as they come.
func (p *Player) wait(ctx context.Context, owed time.Duration) error {
	for {
		p.mu.Lock()
		paused, speed := p.paused, p.speed
		if paused && p.steps > 0 {
			p.steps--
			p.mu.Unlock()
			return nil
		}
		p.mu.Unlock()
		if !paused && owed < replayMinDelay {
			return ctx.Err()
		}
		if paused {
			select {
			case <-p.wake:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		start := p.clock.Now()
		select {
		case <-p.clock.After(time.Duration(float64(owed) / speed)):
			// Loop rather than return: a Pause that raced with the timer still holds the event.
			owed = 0
		case <-p.wake:
			owed -= time.Duration(float64(p.clock.Now().Sub(start)) * speed)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
