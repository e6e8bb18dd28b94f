package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/examtui/examtui/spec"
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
	c.mu.Lock()
	if err := c.active(); err != nil {
		c.mu.Unlock()
		return err
	}
	if c.state == StatePaused && c.pausedByExam {
		c.mu.Unlock()
		return ErrPaused
	}
	now := c.clock.Now()
	text := strings.TrimSpace(t.Text)
	if t.Source == "" {
		t.Source = c.inputSource
	}
	conf := t.Confidence
	if conf == 0 && t.Source == SourceTyped {
		conf = 1
	}
	if t.StartedAt.IsZero() {
		t.StartedAt = now.Add(-t.Duration)
	}
	c.userSpeaking = false
	c.lastUserActivity = now
	c.turn++
	c.segSeq++
	segPayload := TranscriptSegmentPayload{SegmentID: fmt.Sprintf("seg-%04d", c.segSeq), NodeID: c.node.NodeID,
		Speaker: "candidate", Text: text, Confidence: conf, TimestampMs: t.StartedAt.UnixMilli(),
		DurationMs: t.Duration.Milliseconds(), IsFinal: true, Source: t.Source}
	c.emit(&segPayload)
	seg := segment{id: segPayload.SegmentID, norm: normalizeWords(text), confidence: conf}
	if text != "" {
		c.segments = append(c.segments, seg)
		if len(c.segments) > maxNodeSegments {
			c.segments = append([]segment(nil), c.segments[len(c.segments)-maxNodeSegments:]...)
		}
	}

	if c.state == StatePaused {
		c.resumeExam("candidate returned")
		c.ctxm.record(candidateMessage(text, t.Duration))
		c.speak("Welcome back. "+c.lastQuestion, "command", false)
		err := c.sinkErr
		c.mu.Unlock()
		return err
	}
	if c.pendingFinish {
		c.pendingFinish = false
		c.ctxm.record(candidateMessage(text, t.Duration))
		if isAffirmative(text) {
			c.emit(&CommandAcknowledgedPayload{Command: CmdFinish.String(), NodeID: c.node.NodeID, Accepted: true, Source: "confirmation", Detail: "confirmed"})
			c.speak("Thank you. The exam is now finished.", "command", false)
			c.exitNode("finished", "")
			c.finish(StateCompleted, "candidate finished")
		} else {
			c.emit(&CommandAcknowledgedPayload{Command: CmdFinish.String(), NodeID: c.node.NodeID, Accepted: false, Source: "confirmation", Detail: "not confirmed"})
			c.speak("All right, let's carry on. "+c.lastQuestion, "command", false)
		}
		err := c.sinkErr
		c.mu.Unlock()
		return err
	}

	in := &turnInput{turn: c.turn, gen: c.nodeGen, text: text, seg: seg, latency: t.Latency}
	if cmd, ok := ClassifyCommand(text); ok {
		in.safety = cmd
	}
	var admin []string
	var extra []spec.Message
	for _, a := range c.queued {
		admin = append(admin, a.Text)
		extra = append(extra, adminMessage(a, false))
	}
	final := candidateMessage(text, t.Duration)
	extra = append(extra, c.statusMessage())
	req := &ExaminerRequest{
		Exam: c.exam, Node: c.node, Messages: c.ctxm.messages(c.node, extra, &final), Candidate: segPayload,
		Turn: c.turn, AdminInstructions: admin,
		CoveredSignals: c.ledger.Covered(c.node.NodeID, c.node.Controller.EvidenceSignals),
		Directions:     c.takeDirections(), WrapUp: c.integ.wrapUp != "",
	}
	c.integ.examinerCalls++
	gate := c.integ.gates.SpeakGate
	in.stream = &streamState{gen: c.nodeGen, safety: in.safety, wallStart: wallStart}
	req.OnArguments = func(partial []byte) { c.onPartialArguments(in.stream, partial) }
	c.inFlight = true
	c.mu.Unlock()

	if err := c.speakGate(ctx, gate); err != nil {
		c.mu.Lock()
		c.inFlight = false
		c.mu.Unlock()
		return err
	}
	callStart := time.Now()
	cctx, cancel := context.WithTimeout(ctx, c.turnTimeout)
	stopHold := c.holdWhileSlow(in)
	reply, callErr := c.observe(cctx, req) // a matching speculation's reply, or the call (speculate.go)
	stopHold()
	cancel()
	in.callDur = time.Since(callStart)
	in.reply, in.callErr = reply, callErr

	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight = false
	in.stream.done = true
	if c.closed {
		return ErrClosed
	}
	if c.sinkErr != nil {
		return c.sinkErr
	}
	// Queued instructions were in this call's context: consume them, in order.
	consumed := min(len(admin), len(c.queued))
	for _, a := range c.queued[:consumed] {
		c.emit(&AdminInstructionPayload{Mode: a.Mode.String(), Text: a.Text, Sender: a.Sender, NodeID: in.stream.nodeID(c), Status: "consumed"})
		c.ctxm.record(adminMessage(a, false))
	}
	c.queued = append([]AdminInstruction(nil), c.queued[consumed:]...)
	if c.nodeGen != in.gen || c.state.Terminal() {
		// The examiner moved on (advance, skip, end) while the examiner was thinking: the
		// observation no longer applies to anything, but it is still recorded.
		c.emit(&ObservationPayload{NodeID: "", Turn: in.turn, Examiner: c.ex.Name(), Raw: replyArgs(reply), Valid: false,
			Problems: []string{"node changed during the examiner call"},
			Decision: Decision{Action: "discarded", Reason: "node changed during the examiner call"}})
		return c.sinkErr
	}
	c.decide(in)
	return c.sinkErr
}

// maxNodeSegments bounds the transcript segments kept for STT provenance within one node.
const maxNodeSegments = 64

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
		Speaker: "candidate", Text: text, Confidence: min(max(confidence, 0), 1), TimestampMs: c.clock.Now().UnixMilli(),
		IsFinal: false, Source: SourceMic})
	return c.sinkErr
}
