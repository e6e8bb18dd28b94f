package runtime

import (
	"context"
	"time"

	"github.com/examtui/examtui/spec"
)

// beatState tracks one beat.
type beatState struct {
	fired bool
	dueAt time.Time // when the beat first became due (for the user-idle timeout)
}

// Tick applies what time alone decides: the exam budget (expired), time warnings, the node
// budget (time_exhausted) and beats through their gates. Call it about once a second; it does
// nothing while paused.
func (c *Controller) Tick(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	if c.state != StateInProgress || c.node == nil {
		return nil
	}
	now := c.clock.Now()
	pol := c.exam.Policies
	warn := time.Duration(pol.TimeWarningSec) * time.Second

	if total := time.Duration(c.exam.TotalTimeBudgetSec) * time.Second; total > 0 {
		left := total - c.examClock.elapsed(now)
		if left <= 0 {
			c.exitNode(TransitionExit(spec.ReasonTimeExhausted), "")
			c.finish(StateExpired, "total time budget exhausted")
			return c.sinkErr
		}
		if !c.examWarned && warn > 0 && left <= warn {
			c.examWarned = true
			c.emit(&TimeWarningPayload{Scope: WarningExam, RemainingSec: int(left.Round(time.Second).Seconds())})
		}
	}
	nc := c.node.Controller
	if nc.TimeBudgetSec > 0 && c.node.Kind != spec.KindEnd {
		left := time.Duration(nc.TimeBudgetSec)*time.Second - c.nodeClock.elapsed(now)
		if !c.nodeWarned && warn > 0 && left <= warn && left > 0 {
			c.nodeWarned = true
			c.emit(&TimeWarningPayload{Scope: WarningNode, NodeID: c.node.NodeID, RemainingSec: int(left.Round(time.Second).Seconds())})
		}
		// Out of time and nobody mid-turn: move on without waiting for another answer.
		if left <= 0 && !c.inFlight && !c.userSpeaking {
			c.emit(&GuardrailTriggeredPayload{Guardrail: guardrailTimeBudget, NodeID: c.node.NodeID, Action: GuardrailTransition,
				Detail: spec.ReasonTimeExhausted.String()})
			c.transition(spec.ReasonTimeExhausted)
			return c.sinkErr
		}
	}
	if c.checkSilence(now) {
		return c.sinkErr
	}
	c.fireBeats(now)
	return c.sinkErr
}

// fireBeats delivers due beats as directions to the examiner (fireBeat) once their gates are
// open: never while the candidate speaks or a turn is being decided, not before the beat hold, not within the post-speak buffer, and only once the candidate has been idle for
// userIdle (or the beat has waited userIdleTimeout). A beat is never spoken.
func (c *Controller) fireBeats(now time.Time) {
	g := c.integ.gates
	for i := range c.exam.Beats {
		b := c.exam.Beats[i]
		st := &c.beats[i]
		if st.fired {
			continue
		}
		var elapsed time.Duration
		switch b.Scope {
		case "exam":
			elapsed = c.examClock.elapsed(now)
		case c.node.NodeID:
			elapsed = c.nodeClock.elapsed(now)
		default:
			continue
		}
		if elapsed < c.beatAt(i) {
			continue
		}
		if st.dueAt.IsZero() {
			st.dueAt = now
		}
		if c.userSpeaking || c.inFlight {
			continue
		}
		if c.examClock.elapsed(now) < secs(g.BeatHold) || now.Before(c.speakingUntil.Add(secs(g.PostSpeakBuffer))) {
			continue
		}
		if now.Sub(c.lastUserActivity) < secs(g.UserIdle) && now.Sub(st.dueAt) < secs(g.UserIdleTimeout) {
			continue
		}
		c.fireBeat(i)
	}
}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
