package tui

import (
	"fmt"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Replayer is the replay engine a replay console steers: *sessions.Player satisfies it as is.
// The console calls it from Update, so every method must return at once (the Player's only
// take a mutex and poke a buffered channel).
type Replayer interface {
	// SetSpeed changes the playback speed; it refuses speeds the engine does not support.
	SetSpeed(x float64) error
	// Pause holds the next event; Resume lets events flow again.
	Pause()
	Resume()
	// Step pauses and releases exactly one more event.
	Step()
	// State reports the speed, whether playback is paused, and how many events were emitted.
	State() (speed float64, paused bool, emitted int64)
}

// ReplaySpeeds are the steps the faster and slower keys move through (sessions.MinSpeed to
// sessions.MaxSpeed).
var ReplaySpeeds = []float64{0.5, 1, 2, 4, 8, 16}

// WithReplay makes the console a replay viewer steered by r: the replay keys (speed,
// pause/resume, step) and the status line's "replay 4× ▶ event i of N" come alive, and the
// clocks read event time (WithEventClock), since a replay's timestamps are the truth. The
// console must be read-only (Info.ReadOnly): the replay keys are letters the input line would
// otherwise take.
func WithReplay(r Replayer) Option {
	return func(o *options) error {
		if r == nil {
			return fmt.Errorf("%w: nil replayer", ErrInvalidOption)
		}
		o.replay, o.eventClock = r, true
		return nil
	}
}

// WithReplayTotal tells the status line how many events the replay holds (the stored
// session's event count, i.e. its last seq), so it can show "event i of N".
func WithReplayTotal(n int64) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("%w: negative replay total %d", ErrInvalidOption, n)
		}
		o.replayTotal = n
		return nil
	}
}

// replayView is what the status line shows of the replay; it is refreshed from the Replayer
// after every replay key and every batch of events, so View never calls out.
type replayView struct {
	speed   float64
	paused  bool
	emitted int64
}

func (m *Model) syncReplay() {
	if m.opts.replay == nil {
		return
	}
	v := &m.replayView
	v.speed, v.paused, v.emitted = m.opts.replay.State()
}

// handleReplayKey applies a replay key; ok is false when msg is not one.
func (m *Model) handleReplayKey(msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	r, k := m.opts.replay, m.keys
	if r == nil {
		return nil, false
	}
	switch {
	case key.Matches(msg, k.ReplayPause, k.Pause):
		m.syncReplay()
		if m.replayView.paused {
			r.Resume()
			m.setNotice("replay resumed", false)
		} else {
			r.Pause()
			m.setNotice("replay paused", false)
		}
	case key.Matches(msg, k.ReplayStep):
		if m.streamEnded {
			m.setNotice("replay finished: nothing left to step", false)
			break
		}
		r.Step()
		m.setNotice("stepped one event", false)
	case key.Matches(msg, k.ReplayFaster):
		m.changeSpeed(+1)
	case key.Matches(msg, k.ReplaySlower):
		m.changeSpeed(-1)
	default:
		return nil, false
	}
	m.syncReplay()
	return nil, true
}

// changeSpeed moves one step along ReplaySpeeds; a speed off the ladder (--speed 3) moves to
// the nearest step in that direction.
func (m *Model) changeSpeed(dir int) {
	m.syncReplay()
	next, ok := nextSpeed(m.replayView.speed, dir)
	if !ok {
		edge := "fastest"
		if dir < 0 {
			edge = "slowest"
		}
		m.setNotice(fmt.Sprintf("replay already at %s (%s)", speedLabel(m.replayView.speed), edge), false)
		return
	}
	if err := m.opts.replay.SetSpeed(next); err != nil {
		m.opts.logger.Warn("console: replay speed refused", "speed", next, "err", err)
		m.setNotice(fmt.Sprintf("speed %s refused: %v", speedLabel(next), err), true)
		return
	}
	m.setNotice("replay speed "+speedLabel(next), false)
}

func nextSpeed(cur float64, dir int) (float64, bool) {
	if dir > 0 {
		for _, s := range ReplaySpeeds {
			if s > cur {
				return s, true
			}
		}
		return cur, false
	}
	for i := len(ReplaySpeeds) - 1; i >= 0; i-- {
		if s := ReplaySpeeds[i]; s < cur {
			return s, true
		}
	}
	return cur, false
}

func speedLabel(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) + "×" }

// replayStatus is the status line's replay part: "replay 4× ▶ event 12 of 87".
func (m *Model) replayStatus() string {
	st, v := m.styles, m.replayView
	var s string
	switch {
	case m.streamEnded:
		s = st.StatusWarn.Render("replay done")
	case v.paused:
		s = st.StatusWarn.Render("replay "+speedLabel(v.speed)) + " " + st.Warn.Render("⏸")
	default:
		s = st.StatusWarn.Render("replay "+speedLabel(v.speed)) + " " + st.Good.Render("▶")
	}
	pos := "event " + strconv.FormatInt(m.lastSeq, 10)
	if m.opts.replayTotal > 0 {
		pos += " of " + strconv.FormatInt(m.opts.replayTotal, 10)
	}
	return s + " " + st.StatusValue.Render(pos)
}
