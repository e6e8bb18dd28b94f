package runtime

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// restore rebuilds the controller from a stored event log (WithResume). The log must be one
// session's events in seq order from 1 without gaps. Timers are rebuilt from event timestamps;
// the time between the last event and now does not count (the session was not running).
func (c *Controller) restore(events []Event) error {
	if len(events) == 0 {
		return nil
	}
	var (
		lastTs   time.Time
		restarts Restarts
	)
	for i, ev := range events {
		if ev.Seq != int64(i+1) {
			return fmt.Errorf("%w: event %d has seq %d (want %d)", ErrResume, i, ev.Seq, i+1)
		}
		if i == 0 {
			c.sessionID = ev.SessionID
		} else if ev.SessionID != c.sessionID {
			return fmt.Errorf("%w: seq %d belongs to session %q, not %q", ErrResume, ev.Seq, ev.SessionID, c.sessionID)
		}
		p, err := ev.Decode()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrResume, err)
		}
		if restarts.step(ev.Timestamp, p, c.state, c.resumedHere(p)) > 0 {
			// An earlier resume: its process restarted the clocks at its first event.
			c.stopClocks(lastTs)
			c.startClocks(ev.Timestamp)
		}
		if err := c.replay(ev, p); err != nil {
			return fmt.Errorf("%w: seq %d (%s): %w", ErrResume, ev.Seq, ev.Event, err)
		}
		c.replayFailover(p)
		c.replayPresence(ev, p)
		c.seq = ev.Seq
		lastTs = ev.Timestamp
	}
	// Freeze the timers at the last stored event; they restart at this process's first event.
	c.stopClocks(lastTs)
	c.restartPending = c.state == StateInProgress
	c.lastUserActivity = c.clock.Now()
	c.resumed = true
	return nil
}

// resumedHere reports whether p is the first event an earlier resume (continueResumed)
// emitted when it picked up an exam in progress: the "resume" line in the middle of a node,
// or the entry into the next node when the log ended between a node_exit and its
// node_entered (live, the two are emitted together).
func (c *Controller) resumedHere(p Payload) bool {
	_, entry := p.(*NodeEnteredPayload)
	return resumeLine(p) || entry && c.cutExit != nil
}

// replay replays one stored event onto the controller's state.
func (c *Controller) replay(ev Event, p Payload) error {
	ts := ev.Timestamp
	switch p := p.(type) {
	case *SpecReloadPayload:
		return c.replayReload(p)
	case *ExamStatePayload:
		if !p.State.Valid() {
			return fmt.Errorf("unknown state %q", p.State)
		}
		switch {
		case p.State == StateInProgress && c.state == StateReady:
			c.startExamClock(ts)
		case p.State == StateInProgress:
			c.startClocks(ts)
		case p.State == StatePaused || p.State.Terminal():
			c.stopClocks(ts)
			c.pausedByExam = p.State == StatePaused && !p.PausedByCandidate()
			c.replayPause(p)
		}
		c.state = p.State
	case *NodeExitPayload:
		c.cutExit = p
	case *NodeEnteredPayload:
		c.cutExit = nil
		base := c.exam.Node(p.NodeID)
		if base == nil {
			return fmt.Errorf("node %q is not in this exam", p.NodeID)
		}
		node, ok := base.WithVariant(p.Variant)
		if !ok {
			return fmt.Errorf("node %q has no variant %q in this exam", p.NodeID, p.Variant)
		}
		c.resetNode(node, ts)
	case *TranscriptSegmentPayload:
		if !p.IsFinal {
			break // a partial transcript (Interim) numbers nothing and is no turn
		}
		c.segSeq++
		if p.Speaker == SpeakerCandidate && !p.Overheard {
			c.openCall = nil
			if c.heardCandidate(p) {
				c.takeCall()
				if p.Text != "" {
					c.openCall = &RecoveryPayload{Kind: RecoveryNotAssessed, NodeID: p.NodeID, SegmentID: p.SegmentID, Turn: c.turn + 1,
						Reason: NotAssessedRestarted, Detail: "the exam stopped during the examiner's call and was resumed: say it again"}
				}
			}
			c.turnHeard()
			c.pendingFinish = false
			if p.Text != "" {
				c.keepSegment(segment{id: p.SegmentID, norm: normalizeWords(p.Text), confidence: p.Confidence})
			}
		}
	case *SpokenPayload:
		if p.TTSSpeed > 0 {
			c.ttsSpeed = p.TTSSpeed
		}
		c.noteQuestion(p.Text, p.Source)
		c.heard(p)
		c.noteSaying(p.Text, p.Part)
	case *FollowUpIssuedPayload:
		c.followUps = p.Count
	case *CommandAcknowledgedPayload:
		switch Command(p.Command) {
		case CmdClarification:
			c.clarifications++
		case CmdFinish:
			c.pendingFinish = p.AwaitingConfirmation()
		}
	case *EvidenceUpdatePayload:
		if p.Misconception != nil {
			c.ledger.misconceptions = append(c.ledger.misconceptions, MisconceptionEntry{NodeID: p.NodeID, Turn: c.turn, Misconception: *p.Misconception})
			break
		}
		c.ledger.add(LedgerEntry{NodeID: p.NodeID, Turn: c.turn, SignalType: p.SignalType, RubricLevel: p.RubricLevel,
			Excerpt: p.Excerpt, Confidence: p.Confidence, STTConfidence: p.STTConfidence, Transversal: p.Transversal, OtherNode: p.OtherNode})
	case *ObservationPayload:
		c.openCall = nil
		c.settleObservation(p)
		c.turn = max(c.turn, p.Turn)
		if p.Valid && (p.Decision.Action == DecisionContinue || p.Decision.Action == DecisionFollowUp || p.Decision.Action == DecisionTransition) {
			var q struct {
				AnswerQuality AnswerQuality `json:"answerQuality"`
			}
			if json.Unmarshal(p.Raw, &q) == nil && q.AnswerQuality == QualityOffTopic && p.NodeID == c.nodeID() {
				c.offTopic++
			}
		}
	case *TimeWarningPayload:
		if p.Scope == WarningExam {
			c.examWarned = true
		} else if p.NodeID == c.nodeID() {
			c.nodeWarned = true
		}
	case *AdminInstructionPayload:
		switch {
		case p.Mode == AdminQueued && p.Status == AdminReceived:
			c.queued = append(c.queued, AdminInstruction{Mode: AdminQueued, Text: p.Text, Sender: p.Sender})
		case p.Mode == AdminQueued && (p.Status == AdminConsumed || p.Status == AdminPromoted || p.Status == AdminNotActionable):
			if !c.confirmed(p) { // a line settled it already (settle.go)
				c.unqueue(p)
			}
		case p.Mode == AdminImmediate && p.Status == AdminApplied:
			c.adminApplied(p.Text)
		}
	case *ContextSummaryPayload:
		c.ctxm.applySummary(p)
	case *SystemErrorPayload:
		if p.Code == CodeSummaryFailed {
			c.ctxm.summaryFailed()
		}
	case *RecoveryPayload:
		if c.openCall != nil && p.Kind == RecoveryNotAssessed && p.SegmentID == c.openCall.SegmentID {
			c.openCall = nil
		}
		if heard, ok := heardFromDetail(p.Detail); ok && p.Kind == RecoveryBargeIn {
			c.ctxm.interrupted(heard)
			c.noteCut(heard)
		}
	case *BeatFiredPayload:
		delivered := false
		for i, b := range c.exam.Beats {
			// atSec may be a rehearsal override (BOT_WRAPUP_AFTER_SECS) of the wrap-up beat.
			if !c.beats[i].fired && (b.AtSec == p.AtSec || b.Wrapup && p.Wrapup) && b.Scope == p.Scope && b.Message == p.Message {
				c.deliverBeat(i) // as fireBeat did: the direction, in the context too
				delivered = true
				break
			}
		}
		if p.Wrapup && !delivered {
			c.integ.wrapUp = p.Message // the wrap-up direction stands for the rest of the exam
		}
	}
	// The queued instructions a line (or a streamed turn's observation) carried out settle with it.
	switch p := p.(type) {
	case *SpokenPayload:
		c.applySettles(p.Settles)
	case *ObservationPayload:
		c.applySettles(p.Settles)
	}
	// Observation turns are numbered from the candidate segments too (a discarded turn still counts).
	if ts, ok := p.(*TranscriptSegmentPayload); ok && ts.Speaker == SpeakerCandidate && ts.IsFinal {
		c.turn++
	}
	return nil
}

func (c *Controller) nodeID() string {
	if c.node == nil {
		return ""
	}
	return c.node.NodeID
}

// continueResumed picks a restored exam up where its log ends. A log can end anywhere a
// process can die: in the middle of Start, between a node_exit and the node_entered that
// follows it, or in an end node before the exam was finished; each is completed here, as
// the dead process would have. Otherwise the exam re-asks the question it was on. Caller
// holds mu.
func (c *Controller) continueResumed() {
	if oc := c.openCall; oc != nil {
		// The words were heard but never observed: on the record, with why.
		c.openCall = nil
		c.emit(oc)
	}
	c.lostCall()
	c.confirmSettled()
	if c.state == StateScaffolding {
		c.setState(StateReady, "prepared")
	}
	if c.state == StateReady {
		c.beginExam(c.clock.Now())
	}
	switch {
	case c.node == nil:
		c.enterNode(c.clock.Now(), c.exam.EntryNode, "", "")
	case c.cutExit != nil:
		exit := c.cutExit
		c.cutExit = nil
		switch {
		case exit.Next != "":
			c.enterNode(c.clock.Now(), exit.Next, exit.NodeID, exit.Reason.String())
		case exit.Reason == ExitEnded:
			c.finish(StateAborted, "ended before the interruption")
		case exit.Reason == ExitEndNode:
			c.finish(StateCompleted, "end node reached")
		default:
			c.finish(StateCompleted, "no successor after "+exit.NodeID)
		}
	case c.node.Kind == spec.KindEnd:
		c.completeAtEnd()
	case c.state == StateInProgress && c.lastQuestion != "":
		c.speak(c.lineThen(lang.LineResume, c.lastQuestion), SpokenResume, false)
	}
}
