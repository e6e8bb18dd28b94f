package runtime

import (
	"fmt"
	"time"

	"github.com/examtui/examtui/spec"
)

// An examiner that keeps failing (an LLM endpoint answering 500, hanging, closing the
// connection, sending megabytes) must not stall the exam: every failed turn already gets a
// fallback line, but the exam would never move on. After a number of failed turns in a row the
// controller gives up on it: by default the rest of the exam runs on a fallback examiner (the
// offline one, which the caller supplies: runtime cannot import it); a spec may instead end the
// exam (policies.onExaminerFailure: interrupt). Either is recorded as an examiner_switched event.

// DefaultFailoverAfter is how many failed examiner turns in a row trigger the failover.
const DefaultFailoverAfter = 3

// HoldingLine is the short neutral line spoken when the examiner is slow to answer.
const HoldingLine = "One moment, please."

// interruptLine is spoken when the spec ends the exam on examiner failure.
const interruptLine = "I'm sorry, we have to stop the exam here because of a technical problem. Your answers so far have been saved."

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
	failures int  // failed examiner turns in a row
	switched bool // the fallback runs the exam
}

// examinerGaveUp counts a turn's examiner result and, when the failures reach the limit, applies
// the spec's policy: switch to the fallback (false: the turn goes on to its fallback line) or
// end the exam (true: the turn is over). Caller holds mu.
func (c *Controller) examinerGaveUp(failed bool, err error) bool {
	f := &c.failover
	if !failed {
		f.failures = 0
		return false
	}
	f.failures++
	if f.failures < f.after || f.after == 0 || c.state.Terminal() {
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
		c.speak(interruptLine, SpokenSystem, false)
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
	c.ex, c.failover.switched, c.failover.failures = c.failover.fallback, true, 0
}

// replayFailover repeats a stored switch on resume, so a resumed exam stays on the fallback.
func (c *Controller) replayFailover(p Payload) {
	if s, ok := p.(*ExaminerSwitchedPayload); ok && s.To != "" && c.failover.fallback != nil {
		c.useFallback()
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
		c.speak(HoldingLine, SpokenHolding, false)
	})
	return func() { t.Stop() }
}
