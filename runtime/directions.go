package runtime

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// integrityState is the controller's state for beats as directions, the per-turn status and
// the gates (with rehearsal overrides applied). Guarded by mu.
type integrityState struct {
	gates spec.ResolvedGates
	// wrapupAt overrides the wrap-up beat's atSec (BOT_WRAPUP_AFTER_SECS); <0: the spec's.
	wrapupAt int
	// directions are beat directions fired since the last examiner call.
	directions []string
	// wrapUp is the wrap-up beat's direction once it fired; it stays in every later context.
	wrapUp string
	// opening is the opening beat's direction (the beat at t=0), in the entry node's context.
	opening string
	// examinerCalls counts examiner calls, for "don't greet again".
	examinerCalls int
	// inCall are the directions the examiner call in flight took (a resume whose log ends in
	// that call gives them to the next one: lostCall).
	inCall []string
}

func (s *integrityState) init(exam *spec.Exam, ov *GateOverrides) {
	s.gates = exam.Policies.Gates
	s.wrapupAt = -1
	if ov != nil {
		ov.apply(&s.gates)
		if ov.WrapupAfter != nil {
			s.wrapupAt = int(*ov.WrapupAfter)
		}
	}
}

// beatDirection is how a fired beat reaches the examiner: as a direction, never as speech.
func beatDirection(b spec.Beat) string {
	if b.Wrapup {
		return "WRAP-UP DIRECTION (from the exam's pacing; never read it aloud): " + b.Message
	}
	return "PACING DIRECTION (from the exam's pacing; never read it aloud): " + b.Message
}

// beatAt is when beat i is due, with the rehearsal override of the wrap-up beat.
func (c *Controller) beatAt(i int) time.Duration {
	b := c.exam.Beats[i]
	if b.Wrapup && c.integ.wrapupAt >= 0 {
		return time.Duration(c.integ.wrapupAt) * time.Second
	}
	return time.Duration(b.AtSec) * time.Second
}

// fireBeat delivers a due beat as a direction to the examiner (docs/exam-format.md, "Beats as built"): it goes
// into the examiner's context and the next request's Directions, is recorded as beat_fired,
// and is never spoken. A wrap-up beat's direction stays for the rest of the exam; a beat with
// summary compresses the context at this boundary (reset_with_summary).
func (c *Controller) fireBeat(i int) {
	b := c.exam.Beats[i]
	c.emit(&BeatFiredPayload{Message: b.Message, Scope: b.Scope, AtSec: int(c.beatAt(i) / time.Second), Wrapup: b.Wrapup})
	c.deliverBeat(i)
}

// deliverBeat is what firing beat i does to the controller: marked fired, the context
// summarised first if the beat asks, the direction for the next call (and, for the wrap-up,
// every later one; for an exam beat at 0 s, the opening direction), and the direction in the
// context. A live beat (fireBeat) and a replayed beat_fired both run it.
func (c *Controller) deliverBeat(i int) {
	b := c.exam.Beats[i]
	c.beats[i].fired = true
	if b.Summary {
		c.ctxm.summarizeNow()
	}
	c.integ.directions = append(c.integ.directions, b.Message)
	if b.Wrapup {
		c.integ.wrapUp = b.Message
	}
	if b.Scope == "exam" && c.beatAt(i) == 0 && len(c.visited) == 1 && c.integ.opening == "" {
		c.integ.opening = b.Message
	}
	c.ctxm.record(spec.Message{Role: "developer", Content: beatDirection(b)})
}

// fireOpeningBeats fires the beats due at 0 s of the node just entered (and of the exam, at its
// start) at once, without gates: the beat at t=0 is the opening direction for the first turn.
func (c *Controller) fireOpeningBeats() {
	for i := range c.exam.Beats {
		b := c.exam.Beats[i]
		if c.beats[i].fired || c.beatAt(i) != 0 {
			continue
		}
		if b.Scope == c.node.NodeID || b.Scope == "exam" && len(c.visited) == 1 {
			c.fireBeat(i)
		}
	}
}

// takeDirections returns the directions for this examiner call: the beats fired since the
// last call, then the standing wrap-up direction.
func (c *Controller) takeDirections() []string {
	out := c.peekDirections()
	c.integ.directions = nil
	return out
}

// statusMessage tells the examiner where it stands, every turn (design 3.16): follow-ups used
// and remaining, clarifications left, time left in the node and the exam, evidence still
// needed, the standing directions, and, once the candidate has been greeted, not to greet
// again (a policy nudge). Never spoken.
func (c *Controller) statusMessage() spec.Message {
	nc := c.node.Controller
	now := c.clock.Now()
	var b strings.Builder
	b.WriteString("STATUS (for you only; never read it aloud): ")
	fmt.Fprintf(&b, "follow-ups used %d of %d (%d remaining)", c.followUps, nc.MaxFollowUps, max(0, nc.MaxFollowUps-c.followUps))
	maxCl := c.exam.Policies.MaxClarifications
	fmt.Fprintf(&b, "; clarifications left %d of %d", max(0, maxCl-c.clarifications), maxCl)
	if nc.TimeBudgetSec > 0 {
		left := time.Duration(nc.TimeBudgetSec)*time.Second - c.nodeClock.elapsed(now)
		fmt.Fprintf(&b, "; time left on this question %ds of %ds", max(0, int(left.Seconds())), nc.TimeBudgetSec)
	} else {
		b.WriteString("; no time limit on this question")
	}
	if t := c.exam.TotalTimeBudgetSec; t > 0 {
		left := time.Duration(t)*time.Second - c.examClock.elapsed(now)
		fmt.Fprintf(&b, "; time left in the exam %ds", max(0, int(left.Seconds())))
	}
	if c.node.Kind == spec.KindAssessment {
		have := len(c.ledger.Covered(c.node.NodeID, nc.EvidenceSignals))
		fmt.Fprintf(&b, "; evidence gathered %d of %d needed", have, nc.RequiredEvidenceCount)
	}
	b.WriteString(".")
	if c.integ.opening != "" && c.integ.examinerCalls == 0 {
		b.WriteString(" Opening direction: " + c.integ.opening)
	}
	if c.integ.wrapUp != "" {
		b.WriteString(" Wrap-up direction: " + c.integ.wrapUp)
	}
	if c.segSeq > 0 {
		b.WriteString(" You have already greeted the candidate: do not greet or introduce yourself again.")
	}
	return spec.Message{Role: "developer", Content: b.String()}
}

// callGate is the delay before the next examiner call, in seconds: the first-speak gate before
// the very first call of the exam (the first run after the greeting, which should come quickly,
// without the longer gates), the speak gate before every later one. Caller holds mu, before
// takeCall counts the call.
func (c *Controller) callGate() float64 {
	if c.integ.examinerCalls == 0 {
		return c.integ.gates.FirstSpeak
	}
	return c.integ.gates.SpeakGate
}

// speakGate waits the speak gate before an examiner call (BOT_SPEAK_GATE_DELAY_SECS), on the
// controller's clock: a virtual clock advances instead of sleeping.
func (c *Controller) speakGate(ctx context.Context, gate float64) error {
	d := secs(gate)
	if d <= 0 {
		return nil
	}
	if vc, ok := c.clock.(*VirtualClock); ok {
		vc.Advance(d)
		return nil
	}
	return Sleep(ctx, d)
}

// checkSilence runs the silence check-ins (docs/exam-format.md) from Tick: after checkInSec of silence
// a neutral prompt, after a further repeatSec the question again, then the node's timeout path
// (its time budget, or timeoutSec more of silence when set). Silence counts from the later of
// the candidate's last activity and the end of the examiner's speech; any candidate activity
// starts over. Each step is a recovery_event and what is said a spoken event (source
// "silence"). It reports whether the node was left.
func (c *Controller) checkSilence(now time.Time) bool {
	sl := c.exam.Policies.Silence
	if !sl.Enabled || c.node.Kind == spec.KindEnd || c.inFlight || c.userSpeaking {
		return false
	}
	// The stage belongs to the node (entering one starts it over) and to one stretch of silence.
	st := &c.nodeState
	if !st.silenceActivity.Equal(c.lastUserActivity) {
		st.silenceStage, st.silenceActivity = 0, c.lastUserActivity
	}
	since := c.lastUserActivity
	if c.speakingUntil.After(since) {
		since = c.speakingUntil
	}
	quiet := now.Sub(since)
	node := c.node.NodeID
	switch st.silenceStage {
	case 0:
		if quiet < secs(sl.CheckInSec) {
			return false
		}
		st.silenceStage = 1
		c.emit(&RecoveryPayload{Kind: RecoverySilenceCheckIn, NodeID: node, Detail: fmt.Sprintf("%ds of silence: neutral check-in", int(quiet.Seconds()))})
		prompt := sl.Prompt
		if prompt == spec.DefaultSilencePrompt {
			prompt = c.line(lang.LineSilencePrompt) // the default, in the exam's language
		}
		c.speak(prompt, SpokenSilence, false)
	case 1:
		if quiet < secs(sl.RepeatSec) {
			return false
		}
		st.silenceStage = 2
		line := c.lineThen(lang.LineRepeatQuestion, c.lastQuestion)
		c.emit(&RecoveryPayload{Kind: RecoverySilenceRepeat, NodeID: node, Detail: fmt.Sprintf("%ds more of silence: question repeated", int(quiet.Seconds()))})
		c.speak(line, SpokenSilence, false)
	case 2:
		if sl.TimeoutSec <= 0 || quiet < secs(sl.TimeoutSec) {
			return false
		}
		st.silenceStage = 3
		c.emit(&RecoveryPayload{Kind: RecoverySilenceTimeout, NodeID: node, Detail: fmt.Sprintf("%ds more of silence: the node's timeout path", int(quiet.Seconds()))})
		c.emit(&GuardrailTriggeredPayload{Guardrail: guardrailSilence, NodeID: node, Action: GuardrailTransition,
			Detail: spec.ReasonTimeExhausted.String()})
		c.transition(spec.ReasonTimeExhausted)
		return true
	}
	return false
}

// summarizeNow compresses the whole in-node history into the summary (reset_with_summary at a
// beat boundary).
func (cm *contextManager) summarizeNow() {
	cm.flush()
	if len(cm.history) == 0 {
		return
	}
	for _, it := range extractItems(cm.history) {
		cm.summary = appendBounded(cm.summary, it, summaryCapRunes)
	}
	cm.shiftNotes(len(cm.history))
	cm.history = nil
	cm.compressions++
}

// PromoteQueued runs the oldest queued admin instruction now, as an immediate one
// (a queued instruction promoted to immediate); the ones still queued follow it, as after any
// immediate instruction (Admin's chain). It fails with
// ErrNothingQueued when none is waiting.
//
// Promotion happens only between turns: it waits for a turn in flight (turnMu), whose examiner
// call may carry the queued instructions and settles them by their place in the queue, so the
// entry promoted is never one that turn is settling.
func (c *Controller) PromoteQueued(ctx context.Context) error {
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	a, ok, err := c.promoteNext()
	if err != nil {
		return err
	}
	if !ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		if err := c.active(); err != nil {
			return err
		}
		return ErrNothingQueued
	}
	// Received as an immediate instruction, as Admin records one (the stream reads as before).
	c.mu.Lock()
	c.emit(&AdminInstructionPayload{Mode: a.Mode, Text: a.Text, Sender: a.Sender, NodeID: c.node.NodeID, Status: AdminReceived})
	c.speakingUntil = c.clock.Now() // interrupt whatever is being said
	err = c.sinkErr
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.runChain(ctx, a)
}

// CandidateActive records candidate activity that is not speech (typing an answer): the
// silence check-ins count from it. Unlike UserActivity it never holds beats or the node's
// timeout, so an answer left half-typed cannot stop the exam's clock.
func (c *Controller) CandidateActive() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastUserActivity = c.clock.Now()
}
