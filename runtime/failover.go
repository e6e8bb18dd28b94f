package runtime

import (
	"fmt"
	"time"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// An examiner that keeps failing (an LLM endpoint answering 500, hanging, closing the
// connection, sending megabytes) must not stall the exam: every failed turn already gets a
// fallback line, but the exam would never move on. After a number of failed turns in a row the
// controller gives up on it: by default the rest of the exam runs on a fallback examiner (the
// offline one, which the caller supplies: runtime cannot import it); a spec may instead end the
// exam (policies.onExaminerFailure: interrupt). Either is recorded as an examiner_switched event.

// DefaultFailoverAfter is how many failed examiner turns in a row trigger the failover.
const DefaultFailoverAfter = 3

// WithExaminerFailover names the examiner that takes over after `after` failed examiner turns
// in a row (a call error or a reply without the tool call). With a nil fallback only the
// interrupt policy acts; after must be at least 1.
func WithExaminerFailover(fallback Examiner, after int) Option {
	return func(o *options) error {
		if after < 1 {
			return fmt.Errorf("%w: failover after %d failures (want at least 1)", ErrInvalidOption, after)
		}
		o.fallback, o.failoverAfter = fallback, after
		return nil
	}
}

// WithFailoverWait bounds the time failed examiner turns in a row may keep the candidate
// waiting in all: once their calls have taken d together the failover acts at the end of that
// turn, however few they were, and each call after a failed one is cut to the time left. So a
// failing examiner costs the candidate at most d of waiting (plus the fallback lines), whether
// it fails fast (a hang cut at the first-token timeout) or slowly (errors retried until the
// turn deadline). 0 (the default) leaves only the count.
func WithFailoverWait(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 {
			return fmt.Errorf("%w: failover wait %v", ErrInvalidOption, d)
		}
		o.failoverWait = d
		return nil
	}
}

// WithHoldingLine makes the controller say HoldingLine once per turn when the examiner has not
// answered (or started to speak) within after; 0 turns it off (the default).
func WithHoldingLine(after time.Duration) Option {
	return func(o *options) error {
		if after < 0 {
			return fmt.Errorf("%w: holding line after %v", ErrInvalidOption, after)
		}
		o.holdAfter = after
		return nil
	}
}

// failover is the controller's state about a failing examiner.
type failover struct {
	fallback Examiner
	after    int
	hold     time.Duration
	wait     time.Duration // WithFailoverWait; 0: no bound
	failures int           // failed examiner turns in a row
	waited   time.Duration // what their calls took together
	switched bool          // the fallback runs the exam
}

// callTimeout is how long the next examiner call may take: the turn timeout, cut after a
// failed turn to what is left of the failover wait. Caller holds mu.
func (c *Controller) callTimeout() time.Duration {
	f := &c.failover
	if f.wait <= 0 || f.failures == 0 || f.switched {
		return c.turnTimeout
	}
	return min(c.turnTimeout, max(f.wait-f.waited, time.Millisecond))
}

// examinerGaveUp counts a turn's examiner result (took: how long its call kept the candidate
// waiting) and, when the failures in a row reach the limit or their calls the failover wait,
// applies the spec's policy: switch to the fallback (false: the turn goes on to its fallback
// line or its command) or end the exam (true: the turn is over). Every turn whose call fails
// counts, a command's too ("repeat" while the endpoint hangs): the candidate waited on it all
// the same. Caller holds mu.
func (c *Controller) examinerGaveUp(failed bool, took time.Duration, err error) bool {
	f := &c.failover
	if !failed {
		f.failures, f.waited = 0, 0
		return false
	}
	f.failures++
	f.waited += took
	waitedOut := f.wait > 0 && f.waited >= f.wait
	if (f.failures < f.after && !waitedOut) || f.after == 0 || c.state.Terminal() {
		return false
	}
	policy := c.exam.Policies.OnExaminerFailure()
	p := &ExaminerSwitchedPayload{From: c.ex.Name(), Failures: f.failures, Policy: policy, NodeID: c.node.NodeID}
	if err != nil {
		p.LastError = err.Error()
	}
	switch {
	case policy == spec.ExaminerFailureInterrupt:
		c.emit(p)
		c.log.Warn("examiner failed; ending the exam as the spec asks", "examiner", p.From, "failures", f.failures)
		c.speak(c.line(lang.LineInterrupt), SpokenSystem, false)
		c.exitNode(ExitEnded, "")
		c.finish(StateAborted, "interrupted: examiner unavailable")
		return true
	case f.fallback != nil && !f.switched:
		p.To = f.fallback.Name()
		c.emit(p)
		c.log.Warn("examiner failed; the offline examiner takes over", "examiner", p.From, "to", p.To, "failures", f.failures)
		c.useFallback()
	}
	return false
}

// useFallback makes the fallback examiner run the rest of the exam: a live failover, or its
// replay on resume.
func (c *Controller) useFallback() {
	c.ex, c.failover.switched, c.failover.failures, c.failover.waited = c.failover.fallback, true, 0, 0
}

// replayFailover repeats a stored switch on resume, so a resumed exam stays on the fallback.
//
// It also counts the failed turns in a row as the live controller did (a turn's observation,
// valid or not; a discarded one is no examiner failure), so a kill in the middle of a failing
// streak does not start the count again: the failover comes at the same turn either way. (The
// time they took, WithFailoverWait, is not in the log: that bound starts again.)
func (c *Controller) replayFailover(p Payload) {
	switch p := p.(type) {
	case *ExaminerSwitchedPayload:
		if p.To != "" && c.failover.fallback != nil {
			c.useFallback()
		}
	case *ObservationPayload:
		switch {
		case p.Turn == 0 || p.Decision.Action == DecisionDiscarded:
		case p.Valid:
			c.failover.failures = 0
		default:
			c.failover.failures++
		}
	}
}

// holdWhileSlow says HoldingLine once if the examiner call of this turn is still running after
// the hold delay and nothing of its reply has been spoken. The returned stop ends the wait.
func (c *Controller) holdWhileSlow(in *turnInput) (stop func()) {
	if c.failover.hold <= 0 {
		return func() {}
	}
	t := time.AfterFunc(c.failover.hold, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.closed || in.stream.done || len(in.stream.emitted) > 0 || c.nodeGen != in.gen || c.state != StateInProgress {
			return
		}
		c.speak(c.line(lang.LineHolding), SpokenHolding, false)
	})
	return func() { t.Stop() }
}
