package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// Admin delivers an examiner's instruction. Queued instructions join the next turn's context
// and are consumed in order; an immediate one interrupts speech, runs once in an admin context
// (the node's context plus the instruction) and returns to the node with its remaining time
// and counts; after it, the instructions still queued run the same way, in order, before the
// exam returns to its flow (the chain). A line to say (AdminSay) interrupts speech and is said
// as it is, through the output filters, with no examiner call. All are recorded with their
// sender.
//
// Like SubmitTurn, it runs in locked steps (receiveAdmin, prepareAdminRun, finishAdmin), each
// taking mu once and releasing it on return, its only unlock; the examiner call between the
// last two runs without mu.
func (c *Controller) Admin(ctx context.Context, a AdminInstruction) error {
	if err := a.normalize(); err != nil {
		return err
	}
	if interrupts, err := c.receiveAdmin(a); !interrupts {
		return err
	}

	// One examiner call at a time: an immediate instruction waits for a turn in flight, and a
	// line to say waits for it too, so it is never spoken in the middle of a turn's reply.
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	if a.Mode == AdminSay {
		return c.sayLine(a)
	}
	return c.runChain(ctx, a)
}

// runChain runs an immediate instruction, then the queued ones in order (promoteNext), until
// one asks the candidate a question: the candidate answers one supervisor question at a time,
// so the rest wait in the queue for the candidate's next turn (whose examiner call carries
// them). The caller holds turnMu.
func (c *Controller) runChain(ctx context.Context, a AdminInstruction) error {
	done, asked, err := c.runAdmin(ctx, a)
	for done && !asked && err == nil {
		next, ok, perr := c.promoteNext()
		if !ok {
			return perr
		}
		done, asked, err = c.runAdmin(ctx, next)
	}
	return err
}

// runAdmin makes one immediate instruction's examiner call and settles it. done reports that
// it completed (applied, or not actionable) rather than failed, so the chain may go on; asked
// that what was said asked the candidate a question. The caller holds turnMu.
func (c *Controller) runAdmin(ctx context.Context, a AdminInstruction) (done, asked bool, err error) {
	run, err := c.prepareAdminRun(a)
	if run.req == nil {
		return false, false, err
	}
	cctx, cancel := context.WithTimeout(ctx, c.turnTimeout)
	reply, err := c.ex.Observe(cctx, run.req)
	cancel()
	return c.finishAdmin(&run, reply, err)
}

// promoteNext takes the oldest queued instruction for the chain after an immediate one: it is
// recorded as promoted (as PromoteQueued does, so a resume replays it the same way) and
// returned as an immediate instruction. ok is false when none is queued or the controller is
// no longer active. The caller holds turnMu.
func (c *Controller) promoteNext() (AdminInstruction, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.active(); err != nil || len(c.queued) == 0 {
		return AdminInstruction{}, false, err
	}
	a := c.queued[0]
	c.queued = append([]AdminInstruction(nil), c.queued[1:]...)
	c.emit(&AdminInstructionPayload{Mode: a.Mode, Text: a.Text, Sender: a.Sender, NodeID: c.node.NodeID, Status: AdminPromoted})
	a.Mode = AdminImmediate
	return a, true, c.sinkErr
}

// sayLine speaks a line to say (AdminSay): the examiner's own words, through the node's output
// filters (the runtime's last line of defence; an interception is recorded and marks the
// spoken event) but not the instruction echo guard, since these words were chosen to be said.
// It is not an instruction to the examiner, so nothing is chained after it. The caller holds
// turnMu.
func (c *Controller) sayLine(a AdminInstruction) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.active(); err != nil {
		return err
	}
	nodeID := c.node.NodeID
	_, parts, hits := c.filtersFor(nodeID).runOwnFilters(a.Text)
	c.emitIntercepts(nodeID, hits)
	for i, p := range parts {
		c.speakPart(p, SpokenSay, len(hits) > 0, i, false)
	}
	c.emit(&AdminInstructionPayload{Mode: a.Mode, Text: a.Text, Sender: a.Sender, NodeID: nodeID, Status: AdminApplied})
	return c.sinkErr
}

// adminRun is an immediate instruction's examiner call: what prepareAdminRun prepared under mu
// for the call made without it. The zero value is no call.
type adminRun struct {
	a    AdminInstruction
	gen  int
	node *spec.CompiledNode
	req  *ExaminerRequest
}

// receiveAdmin is Admin's first locked step: it records the instruction as received and either
// queues it for the next turn (interrupts false; the error is Admin's result) or interrupts
// whatever is being said for the admin run or the line to say (interrupts true).
func (c *Controller) receiveAdmin(a AdminInstruction) (interrupts bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.active(); err != nil {
		return false, err
	}
	c.emit(&AdminInstructionPayload{Mode: a.Mode, Text: a.Text, Sender: a.Sender, NodeID: c.node.NodeID, Status: AdminReceived})
	if !a.Mode.Interrupts() {
		c.queued = append(c.queued, a)
		return false, c.sinkErr
	}
	c.speakingUntil = c.clock.Now() // interrupt whatever is being said
	return true, nil
}

// prepareAdminRun builds the admin run's request once no turn is in flight (the caller holds
// turnMu) and marks the call in flight. A controller no longer active makes no call.
func (c *Controller) prepareAdminRun(a AdminInstruction) (adminRun, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.active(); err != nil {
		return adminRun{}, err
	}
	node := c.node
	note := adminMessage(a, true)
	req := &ExaminerRequest{Exam: c.exam, Node: node, Messages: c.ctxm.messages(node, []spec.Message{note}, nil),
		AdminInstructions: []string{a.Text}, AdminOnly: true,
		Candidate:      TranscriptSegmentPayload{NodeID: node.NodeID, Speaker: SpeakerCandidate, IsFinal: true},
		CoveredSignals: c.ledger.Covered(node.NodeID, node.Controller.EvidenceSignals)}
	c.inFlight = true
	return adminRun{a: a, gen: c.nodeGen, node: node, req: req}, nil
}

// finishAdmin is Admin's last locked step: the run's reply is filtered (the instruction echo
// guard first) and spoken in the node it was asked in; an examiner that cannot act on the
// instruction says nothing and it is recorded as not actionable; else it is recorded as
// failed. done reports that the run completed (applied or not actionable).
func (c *Controller) finishAdmin(run *adminRun, reply *ExaminerReply, err error) (done, asked bool, _ error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight = false
	if err := c.usable(); err != nil {
		return false, false, err
	}
	a, node := run.a, run.node
	moved := c.nodeGen != run.gen || c.state.Terminal()
	if err == nil && !moved && reply.adminResult(0) == AdminNotActionable {
		c.emit(&AdminInstructionPayload{Mode: a.Mode, Text: a.Text, Sender: a.Sender, NodeID: node.NodeID, Status: AdminNotActionable, Usage: c.replyUsage(reply, node.NodeID)})
		return true, false, c.sinkErr
	}
	text, perr := adminSpokenText(reply, err)
	if perr != nil || moved {
		if perr == nil {
			perr = fmt.Errorf("node changed during the admin run")
		}
		c.emit(&SystemErrorPayload{Code: CodeAdminFailed, Message: perr.Error(), NodeID: node.NodeID})
		c.emit(&AdminInstructionPayload{Mode: a.Mode, Text: a.Text, Sender: a.Sender, NodeID: node.NodeID, Status: AdminFailed, Usage: c.replyUsage(reply, node.NodeID)})
		return false, false, c.sinkErr
	}
	c.applying = []string{a.Text}
	asked = c.speakFiltered(node.NodeID, text, SpokenAdmin)
	c.applying = nil
	c.adminApplied(a.Text)
	c.emit(&AdminInstructionPayload{Mode: a.Mode, Text: a.Text, Sender: a.Sender, NodeID: node.NodeID, Status: AdminApplied, Usage: c.replyUsage(reply, node.NodeID)})
	return true, asked, c.sinkErr
}

// adminSpokenText takes spokenText from an admin run's reply. Signals and the rest are
// irrelevant there, so a reply that is malformed elsewhere but carries spokenText is used.
func adminSpokenText(reply *ExaminerReply, err error) (string, error) {
	if err != nil {
		return "", fmt.Errorf("examiner: %w", err)
	}
	if reply == nil || len(reply.Arguments) == 0 {
		if reply != nil && strings.TrimSpace(reply.Content) != "" {
			return strings.TrimSpace(reply.Content), nil
		}
		return "", ErrNoToolCall
	}
	var v struct {
		SpokenText *string `json:"spokenText"`
	}
	if err := json.Unmarshal(reply.Arguments, &v); err != nil {
		return "", fmt.Errorf("%w: %w", ErrMalformedArguments, err)
	}
	if v.SpokenText == nil || strings.TrimSpace(*v.SpokenText) == "" {
		return "", fmt.Errorf("%w: spokenText", ErrMissingField)
	}
	return *v.SpokenText, nil
}

// Control applies an examiner's control action: pause, resume, skip (regardless of the
// candidate skip policy), advance (admin_advance), end (aborted) or promote (PromoteQueued,
// so every command channel that carries controls can promote). It does not wait for a turn
// in flight: that turn's observation is discarded if the node changes under it.
func (c *Controller) Control(ctx context.Context, a ControlAction, sender string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !a.Valid() {
		return fmt.Errorf("%w: %d", ErrInvalidControl, int(a))
	}
	if a == ControlPromote {
		return c.PromoteQueued(ctx)
	}
	if sender == "" {
		sender = "examiner"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.active(); err != nil {
		return err
	}
	switch a {
	case ControlPause:
		if c.state != StateInProgress {
			return fmt.Errorf("%w: pause from %s", ErrInvalidTransition, c.state)
		}
	case ControlResume:
		if c.state != StatePaused {
			return fmt.Errorf("%w: resume from %s", ErrInvalidTransition, c.state)
		}
	}
	c.emit(&AdminInstructionPayload{Mode: AdminControl, Text: a.String(), Sender: sender, NodeID: c.node.NodeID, Status: AdminApplied})
	switch a {
	case ControlPause:
		c.pauseExam("paused by "+sender, Actor{Kind: ActorExaminer, Identity: sender})
	case ControlResume:
		c.resumeExam("resumed by "+sender, Actor{Kind: ActorExaminer, Identity: sender})
		c.speak(c.lineThen(lang.LineContinue, c.lastQuestion), SpokenCommand, false)
	case ControlSkip:
		c.transition(spec.ReasonSkipped)
	case ControlAdvance:
		c.transition(spec.ReasonAdminAdvance)
	case ControlEnd:
		c.exitNode(ExitEnded, "")
		c.finish(StateAborted, "ended by "+sender)
	}
	return c.sinkErr
}

// UserActivity tells the controller that the candidate started (true) or stopped (false)
// speaking, from VAD; beats never fire while the candidate speaks.
func (c *Controller) UserActivity(speaking bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.userSpeaking = speaking
	c.lastUserActivity = c.clock.Now()
}

// SpeechDone tells the controller the examiner's speech finished playing (replacing the
// estimate used for the post-speak gate).
func (c *Controller) SpeechDone() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.speakingUntil = c.clock.Now()
}

// RunTicker calls Tick every interval until ctx ends or the exam is over. It runs in the
// caller's goroutine.
func (c *Controller) RunTicker(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if err := c.Tick(ctx); err != nil {
				return err
			}
			if c.Snapshot().State.Terminal() {
				return nil
			}
		}
	}
}

// SpeechInterrupted tells the controller the candidate barged in on the examiner: playback
// stopped after heard, the part of the line the candidate actually heard. The examiner's
// context keeps only that part, so the next turn does not assume the rest was said.
func (c *Controller) SpeechInterrupted(heard string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.speakingUntil = c.clock.Now()
	if c.state.Terminal() {
		return c.sinkErr
	}
	heard = strings.TrimSpace(heard)
	c.ctxm.interrupted(heard)
	c.noteCut(heard)
	nodeID := ""
	if c.node != nil {
		nodeID = c.node.NodeID
	}
	c.emit(&RecoveryPayload{Kind: RecoveryBargeIn, NodeID: nodeID, Detail: bargeInDetail(heard)})
	return c.sinkErr
}

func quoteOrNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return strconv.Quote(s)
}
