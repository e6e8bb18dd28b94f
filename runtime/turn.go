package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// turnInput is what decide needs about one candidate turn.
type turnInput struct {
	turn    int
	gen     int
	text    string
	seg     segment
	safety  Command
	reply   *ExaminerReply
	callErr error
	callDur time.Duration
	latency Latency
	stream  *streamState
}

// SubmitTurn hands the controller one candidate turn: it is recorded, observed by the examiner
// and decided on in the design's order. A turn while the candidate has paused resumes the
// exam; while an examiner has paused it, the turn is refused with ErrPaused.
//
// It runs in three steps: takeTurn and finishTurn hold mu (each releases it on return, its
// only unlock); between them, the examiner call runs without mu, so the examiner can be
// paused, advanced or ended while it thinks. turnMu keeps turns (and immediate admin runs)
// one at a time throughout.
func (c *Controller) SubmitTurn(ctx context.Context, t Turn) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := t.validate(); err != nil {
		return err
	}
	wallStart := time.Now()
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	call, err := c.takeTurn(t, wallStart)
	if call.in == nil {
		return err
	}
	gateErr := c.speakGate(ctx, call.gate)
	if gateErr == nil {
		c.observe(ctx, &call)
	}
	if err := c.finishTurn(&call, gateErr); err != nil {
		return err
	}
	// After the turn, so the reply is not held back by it (summary.go).
	return c.summariseOlderTurns(ctx)
}

// examinerCall is a turn that goes to the examiner: what takeTurn prepared under mu for the
// call made without it. The zero value is no call. (A value, not a pointer: one allocation
// less per turn.)
type examinerCall struct {
	in     *turnInput
	req    *ExaminerRequest
	queued int     // queued admin instructions in the request's context, consumed after the call
	gate   float64 // the speak gate to wait first (seconds)
	// timeout bounds the call: the turn timeout, less after a failed turn (callTimeout).
	timeout time.Duration
}

// takeTurn is SubmitTurn's first locked step. It checks that the controller takes the turn,
// records the candidate's segment and settles a turn that needs no examiner: the candidate
// returning from a pause, or answering a finish confirmation (no call; the error is the
// turn's result). Any other turn comes back as the examiner call to make, marked in flight.
func (c *Controller) takeTurn(t Turn, wallStart time.Time) (examinerCall, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.active(); err != nil {
		return examinerCall{}, err
	}
	text := strings.TrimSpace(t.Text)
	if c.state == StatePaused && c.pausedByExam {
		// Refused, but not lost: the words are in the transcript with their reason.
		if text != "" {
			segPayload, _ := c.recordCandidateTurn(&t, text)
			c.heardCandidate(&segPayload)
			c.notAssessed(segPayload.NodeID, c.turn, segPayload.SegmentID, text, NotAssessedExamPaused, "an examiner paused the exam")
		}
		return examinerCall{}, ErrPaused
	}
	c.resumeOnAnswer() // presence.go
	c.answerInstead(text)
	segPayload, seg := c.recordCandidateTurn(&t, text)
	resume := c.falseCut(text)
	c.heardCandidate(&segPayload)
	c.turnHeard()
	switch {
	case resume != "":
		c.notAssessed(segPayload.NodeID, c.turn, segPayload.SegmentID, text, NotAssessedBackchannel, "a backchannel over the examiner's line: the line goes on")
		c.speak(resume, SpokenExaminer, false)
		return examinerCall{}, c.sinkErr
	case c.state == StatePaused:
		c.notAssessed(segPayload.NodeID, c.turn, segPayload.SegmentID, text, NotAssessedReturnFromPause, "the candidate came back from the pause")
		c.candidateReturned()
		return examinerCall{}, c.sinkErr
	case c.pendingFinish:
		c.notAssessed(segPayload.NodeID, c.turn, segPayload.SegmentID, text, NotAssessedFinishConfirmation, "the answer to the finish confirmation")
		c.confirmFinish(text)
		return examinerCall{}, c.sinkErr
	}
	return c.prepareCall(t, text, segPayload, seg, wallStart), nil
}

// answerInstead handles words that are an answer where the controller waits for a short reply
// of its own: back from the candidate's pause ("I'm ready"), or yes or no to "are you sure you
// want to finish?". An answer instead (any words beyond the vocabulary's return words, or a
// yes or no) resumes the exam or sets the finish aside, before the segment is recorded, so the
// turn goes to the examiner as any other and a resumed controller replays it the same way.
// Caller holds mu.
func (c *Controller) answerInstead(text string) {
	if text == "" || c.vocab.onlyReturns(text) {
		return
	}
	switch {
	case c.state == StatePaused && !c.pausedByExam:
		c.resumeExam("candidate answered", Actor{Kind: ActorCandidate})
	case c.pendingFinish && !c.listen.affirmative(text) && !c.listen.negative(text):
		c.pendingFinish = false
		c.emit(&CommandAcknowledgedPayload{Command: CmdFinish.String(), NodeID: c.node.NodeID, Accepted: false, Source: CommandByConfirmation, Detail: detailAnsweredInstead})
	}
}

// recordCandidateTurn fills in the turn's defaults, counts it and emits its transcript
// segment, which it keeps for STT provenance. Caller holds mu.
func (c *Controller) recordCandidateTurn(t *Turn, text string) (TranscriptSegmentPayload, segment) {
	c.userSpeaking = false
	c.lastUserActivity = c.clock.Now()
	c.turn++
	c.segSeq++
	segPayload := c.candidateSegment(t, text)
	c.emit(&segPayload)
	seg := segment{id: segPayload.SegmentID, norm: normalizeWords(text), confidence: segPayload.Confidence}
	if text != "" {
		c.keepSegment(seg)
	}
	return segPayload, seg
}

// candidateSegment fills in the turn's defaults (source, confidence of typed text, start) and
// returns its transcript segment, numbered with the current segment counter. SubmitTurn and
// Speculate build the candidate's segment with it, so a speculation sees the same one. Caller
// holds mu.
func (c *Controller) candidateSegment(t *Turn, text string) TranscriptSegmentPayload {
	if t.Source == "" {
		t.Source = c.inputSource
	}
	conf := t.Confidence
	if conf == 0 && t.Source == SourceTyped {
		conf = 1
	}
	if t.StartedAt.IsZero() {
		t.StartedAt = c.clock.Now().Add(-t.Duration)
	}
	return TranscriptSegmentPayload{SegmentID: fmt.Sprintf("seg-%04d", c.segSeq), NodeID: c.node.NodeID,
		Speaker: SpeakerCandidate, Text: text, Confidence: conf, TimestampMs: t.StartedAt.UnixMilli(),
		DurationMs: t.Duration.Milliseconds(), IsFinal: true, Source: t.Source}
}

// candidateReturned resumes an exam the candidate paused: any turn brings them back to the
// question. Caller holds mu.
func (c *Controller) candidateReturned() {
	c.resumeExam("candidate returned", Actor{Kind: ActorCandidate})
	c.speak(c.lineThen(lang.LineWelcomeBack, c.lastQuestion), SpokenCommand, false)
}

// confirmFinish takes the candidate's answer to "are you sure you want to finish?": yes ends
// the exam, anything else carries on with the question. Caller holds mu.
func (c *Controller) confirmFinish(text string) {
	c.pendingFinish = false
	if c.listen.affirmative(text) {
		c.emit(&CommandAcknowledgedPayload{Command: CmdFinish.String(), NodeID: c.node.NodeID, Accepted: true, Source: CommandByConfirmation, Detail: detailConfirmed})
		c.speak(c.line(lang.LineFinished), SpokenCommand, false)
		c.exitNode(ExitFinished, "")
		c.finish(StateCompleted, "candidate finished")
	} else {
		c.emit(&CommandAcknowledgedPayload{Command: CmdFinish.String(), NodeID: c.node.NodeID, Accepted: false, Source: CommandByConfirmation, Detail: detailNotConfirmed})
		c.speak(c.lineThen(lang.LineCarryOn, c.lastQuestion), SpokenCommand, false)
	}
}

// prepareCall builds the examiner request for the turn (the node's context, the queued admin
// instructions, the status, the directions) and marks the turn in flight. Caller holds mu.
func (c *Controller) prepareCall(t Turn, text string, segPayload TranscriptSegmentPayload, seg segment, wallStart time.Time) examinerCall {
	in := &turnInput{turn: c.turn, gen: c.nodeGen, text: text, seg: seg, latency: t.Latency}
	if cmd, ok := c.listen.classify(text); ok {
		in.safety = cmd
	}
	gate := c.callGate()
	req, queued := c.examinerRequest(c.ctxm, t, text, segPayload, c.takeCall)
	in.stream = &streamState{gen: c.nodeGen, safety: in.safety, wallStart: wallStart}
	req.OnArguments = func(partial []byte) { c.onPartialArguments(in.stream, partial) }
	c.inFlight = true
	return examinerCall{in: in, req: req, queued: queued, gate: gate, timeout: c.callTimeout()}
}

// examinerRequest builds the request for the candidate's turn from the context cm: the node's
// context with the queued instructions, the status and the turn's words, the covered signals,
// and the directions (taken last: the status is read before). It returns how many queued
// instructions the request carries. SubmitTurn and Speculate both build their requests here,
// so a speculation is reused only for the very request the turn makes. Caller holds mu.
func (c *Controller) examinerRequest(cm *contextManager, t Turn, text string, seg TranscriptSegmentPayload, directions func() []string) (*ExaminerRequest, int) {
	var admin []string
	var extra []spec.Message
	for _, a := range c.queued {
		admin = append(admin, a.Text)
		extra = append(extra, adminMessage(a, false))
	}
	final := candidateMessage(text, t.Duration)
	extra = append(extra, c.statusMessage())
	req := &ExaminerRequest{
		Exam: c.exam, Node: c.node, Messages: cm.messages(c.node, extra, &final), Candidate: seg,
		Turn: c.turn, AdminInstructions: admin, Question: c.lastQuestion, Language: c.lang,
		CoveredSignals: c.ledger.Covered(c.node.NodeID, c.node.Controller.EvidenceSignals),
	}
	req.Directions, req.WrapUp = directions(), c.integ.wrapUp != ""
	return req, len(admin)
}

// observe makes the examiner call, without mu, under the turn timeout; a slow call gets the
// holding line. The reply, error and duration go into the turn's input.
func (c *Controller) observe(ctx context.Context, call *examinerCall) {
	in := call.in
	callStart := time.Now()
	cctx, cancel := context.WithTimeout(ctx, call.timeout)
	stopHold := c.holdWhileSlow(in)
	reply, callErr := c.examinerReply(cctx, call.req) // a matching speculation's reply, or the call (speculate.go)
	stopHold()
	cancel()
	in.callDur = time.Since(callStart)
	in.reply, in.callErr = reply, callErr
}

// finishTurn is SubmitTurn's last locked step: the turn is no longer in flight; unless the
// speak gate failed or the controller closed or failed meanwhile, the queued instructions the
// call saw are consumed and the reply is decided on, or recorded as discarded when the node
// changed (or the exam ended) during the call.
func (c *Controller) finishTurn(call *examinerCall, gateErr error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight = false
	in := call.in
	if gateErr != nil {
		c.notAssessed(call.req.Candidate.NodeID, in.turn, in.seg.id, in.text, NotAssessedCancelled, gateErr.Error())
		return gateErr
	}
	in.stream.done = true
	if err := c.usable(); err != nil {
		return err
	}
	// While the reply is filtered the queued instructions in the call's context are the ones
	// being applied, so it cannot read them out. They are settled after the decision, by what
	// was said (settleQueued).
	c.applying = call.req.AdminInstructions
	defer func() { c.applying = nil }()
	c.settling = c.beginSettle(call, in.stream.nodeID(c))
	defer func() {
		c.settleQueued()
		c.settling = nil
	}()
	if c.nodeGen != in.gen || c.state.Terminal() {
		// The examiner moved on (advance, skip, end) while the examiner was thinking: the
		// observation no longer applies to anything, but it is still recorded.
		op := &ObservationPayload{NodeID: "", Turn: in.turn, Examiner: c.ex.Name(), Raw: replyArgs(in.reply), Valid: false,
			Problems: []string{"node changed during the examiner call"},
			Decision: Decision{Action: DecisionDiscarded, Reason: "node changed during the examiner call"}, Usage: c.replyUsage(in.reply, ""),
			Settles: c.settlesWith("")}
		c.emit(op)
		c.settleObservation(op)
		c.applySettles(op.Settles)
		c.notAssessed(call.req.Candidate.NodeID, in.turn, in.seg.id, in.text, NotAssessedNodeChanged, "the exam moved on during the examiner call")
		return c.sinkErr
	}
	c.decide(in)
	return c.sinkErr
}

// settleQueued settles the queued instructions the call's context carried, in order, once
// the turn is decided: those a line carried out (settle.go) are consumed, and their events
// follow unless the exam ended in the turn (the line is their record); one the examiner could
// not act on left the queue with the observation, not actionable, whatever happened (its event
// follows likewise); any other stays queued for
// the next turn (a limit or a command moved the exam on before its reply was said, or the
// filters cut what it asked to say). Instructions promoted or settled meanwhile are not
// touched: promotion waits for the turn (turnMu). Caller holds mu.
func (c *Controller) settleQueued() {
	s := c.settling
	if s == nil {
		return
	}
	for i, a := range s.instrs {
		p := &AdminInstructionPayload{Mode: a.Mode, Text: a.Text, Sender: a.Sender, NodeID: s.nodeID, Status: AdminConsumed}
		if s.in.reply.adminResult(i) == AdminNotActionable {
			p.Status = AdminNotActionable // settled by the observation (settlesWith)
		}
		if s.settled[i] && c.confirmed(p) && !c.state.Terminal() {
			c.emit(p)
		}
	}
}

// cutFromReply reports whether the reply carried what an instruction addressed to the candidate
// asks to say ("Ask about weekend cover.": "weekend cover") and the filters cut it before it
// was said (one_question keeps one of two such questions): the instruction was not carried
// out. An examiner that put it in words of its own is taken at its report.
func cutFromReply(instruction, reply, said string) bool {
	d, ok := parseDirective(instruction)
	if !ok {
		return false
	}
	p := normPhrase(d.payload)
	return p != "" && containsNorm(reply, p) && !containsNorm(said, p)
}

// replySpokenText is the spokenText of an examiner's reply, or "".
func replySpokenText(r *ExaminerReply) string {
	if r == nil || len(r.Arguments) == 0 {
		return ""
	}
	var v struct {
		SpokenText string `json:"spokenText"`
	}
	_ = json.Unmarshal(r.Arguments, &v)
	return v.SpokenText
}

// maxNodeSegments bounds the transcript segments kept for STT provenance within one node.
const maxNodeSegments = 64

// replyUsage is the reply's usage for the event that records the call (a discarded reply was
// paid for too), checked by CheckUsage: usage a provider got wrong is recorded as unknown, with
// a system_error saying so, and never fails the turn. Caller holds c.mu.
func (c *Controller) replyUsage(r *ExaminerReply, nodeID string) *TurnUsage {
	if r == nil {
		return nil
	}
	return c.checkedUsage(r.Usage, nodeID)
}

// checkedUsage is u checked by CheckUsage, with the system_error note when it was refused.
func (c *Controller) checkedUsage(u *TurnUsage, nodeID string) *TurnUsage {
	u, reason := CheckUsage(u)
	if reason != "" {
		c.log.Warn("provider usage refused", "model", u.Model, "reason", reason)
		c.emit(&SystemErrorPayload{Code: CodeUsageInvalid, NodeID: nodeID,
			Message: fmt.Sprintf("the model server's token counts for %s were refused (%s); the call's usage is recorded as unknown", u.Model, reason)})
	}
	return u
}

func replyArgs(r *ExaminerReply) []byte {
	if r == nil {
		return nil
	}
	return rawForEvent(r.Arguments)
}

// rawForEvent keeps an examiner's raw arguments in the observation event: as they are when
// they are JSON, as a JSON string when they are not (a malformed reply is the interesting case).
func rawForEvent(raw []byte) json.RawMessage {
	if len(raw) == 0 || json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(strings.ToValidUTF8(string(raw), "\uFFFD"))
	return b
}

func candidateMessage(text string, d time.Duration) spec.Message {
	if text == "" {
		return spec.Message{Role: "user", Content: fmt.Sprintf("[the candidate was silent for %d seconds]", int(d.Seconds()))}
	}
	return spec.Message{Role: "user", Content: text}
}

func adminMessage(a AdminInstruction, immediate bool) spec.Message {
	if immediate {
		return spec.Message{Role: "developer", Content: "ADMIN INSTRUCTION [IMMEDIATE] from the supervising examiner: " + a.Text +
			"\nSay this to the candidate now, briefly and in character, then return to the current question. Report it with report_observation (no signals)."}
	}
	return spec.Message{Role: "developer", Content: "ADMIN INSTRUCTION from the supervising examiner (apply in your next reply): " + a.Text}
}

// Interim publishes the candidate's words so far while they are still speaking (a partial
// transcript, isFinal false), so consoles can show them. It decides nothing and changes no
// count: the final turn still arrives through SubmitTurn.
func (c *Controller) Interim(text string, confidence float64) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.active(); err != nil {
		return err
	}
	c.emit(&TranscriptSegmentPayload{SegmentID: fmt.Sprintf("seg-%04d-partial", c.segSeq+1), NodeID: c.node.NodeID,
		Speaker: SpeakerCandidate, Text: text, Confidence: min(max(confidence, 0), 1), TimestampMs: c.clock.Now().UnixMilli(),
		IsFinal: false, Source: SourceMic})
	return c.sinkErr
}
