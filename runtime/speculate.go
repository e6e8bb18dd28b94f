package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/examtui/examtui/spec"
)

// Speculative examiner work: while the voice path waits out the end of a turn, the words so
// far are usually the final words. Speculate runs the examiner on them then, without emitting
// or changing anything (an unused call's usage is recorded when it ends: call_usage); SubmitTurn reuses that reply only when the request it would send now is
// the same request (the same text, and the same controller state as far as the examiner sees
// it: context, status, node, instructions, directions, covered evidence, examiner). Otherwise
// the speculation is discarded and the examiner called as usual, so a speculation can save
// time but never change a decision. The only hook in SubmitTurn is the examiner call
// (Controller.examinerReply).

// SpeculationStats counts speculations: started, reused by SubmitTurn, and discarded (the
// final turn or the state differed, a newer one replaced it, or it failed).
type SpeculationStats struct {
	Started, Reused, Discarded int
}

// speculation is one examiner call made ahead of its turn.
type speculation struct {
	key    [sha256.Size]byte
	text   string   // the turn's words
	admin  []string // the queued instructions the request carries
	ex     Examiner
	exam   *spec.Exam
	cancel context.CancelFunc
	done   chan struct{}

	// Written by the call's goroutine before done closes.
	reply    *ExaminerReply
	err      error
	partials [][]byte
	began    bool // the examiner was called (it was not replaced before it began)

	// Guarded by Controller.mu: an unused speculation's usage is recorded once both its call
	// has finished and it is known to be unused (settleSpeculation).
	nodeID                    string
	finished, unused, settled bool
}

// specSlot is the controller's one pending speculation (guarded by Controller.mu).
type specSlot struct {
	s     *speculation
	stats SpeculationStats
}

// Speculate starts the examiner on t as if it were the candidate's final turn (usually an
// interim transcript during the end-of-turn wait). It emits nothing and changes no state; a
// newer Speculate, CancelSpeculation or the SubmitTurn that follows ends it. It does nothing
// (and returns nil) when no turn could be observed now: silence, a paused or finishing exam,
// or an examiner call already running. The call is bounded by ctx and the turn timeout.
func (c *Controller) Speculate(ctx context.Context, t Turn) error {
	if err := t.validate(); err != nil {
		return err
	}
	text := strings.TrimSpace(t.Text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.active(); err != nil {
		return err
	}
	c.dropSpeculation()
	sl := &c.speculation
	if text == "" || c.state == StatePaused || c.pendingFinish || c.inFlight {
		return nil
	}
	req := c.speculativeRequest(t, text)
	key, err := requestKey(req)
	if err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(ctx, c.turnTimeout)
	s := &speculation{key: key, text: text, admin: req.AdminInstructions, ex: c.ex, exam: c.exam, cancel: cancel,
		done: make(chan struct{}), nodeID: c.node.NodeID}
	sl.s = s
	sl.stats.Started++
	req.OnArguments = func(p []byte) { s.partials = append(s.partials, bytes.Clone(p)) }
	go func(ex Examiner) {
		defer func() {
			c.mu.Lock()
			s.finished = true
			c.settleSpeculation(s)
			c.mu.Unlock()
		}()
		defer close(s.done)
		defer cancel()
		if s.err = sctx.Err(); s.err != nil {
			return // replaced before it began
		}
		s.began = true
		s.reply, s.err = ex.Observe(sctx, req)
	}(c.ex)
	return nil
}

// CancelSpeculation ends the pending speculation, if any (the candidate spoke again).
func (c *Controller) CancelSpeculation() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropSpeculation()
}

// Speculations returns the speculation counts so far.
func (c *Controller) Speculations() SpeculationStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.speculation.stats
}

// dropSpeculation cancels the pending speculation; its call's usage is recorded when it ends.
// Caller holds c.mu.
func (c *Controller) dropSpeculation() {
	sl := &c.speculation
	if s := sl.s; s != nil {
		s.cancel()
		sl.s = nil
		sl.stats.Discarded++
		c.unusedSpeculation(s)
	}
}

// speculativeRequest builds the ExaminerRequest SubmitTurn would build for t now, without
// changing the controller: the turn and segment counters are advanced for the status message
// and put back, and the directions are read, not taken. Caller holds c.mu.
func (c *Controller) speculativeRequest(t Turn, text string) *ExaminerRequest {
	c.turn++
	c.segSeq++
	defer func() { c.turn--; c.segSeq-- }()
	seg := c.candidateSegment(&t, text)
	req, _ := c.examinerRequest(c.ctxm.peek(), t, text, seg, c.peekDirections)
	return req
}

// peekDirections are the directions the next examiner call gets (takeDirections takes them):
// the beats fired since the last call, then the standing wrap-up direction.
func (c *Controller) peekDirections() []string {
	out := append([]string(nil), c.integ.directions...)
	if c.integ.wrapUp != "" && !slices.Contains(out, c.integ.wrapUp) {
		out = append(out, c.integ.wrapUp)
	}
	return out
}

// requestKey fingerprints what an examiner is given. The candidate segment's start time is
// left out: the interim transcript cannot know when the final turn will be stamped, and no
// examiner reads it (they read the text, and the messages carry everything else).
func requestKey(req *ExaminerRequest) ([sha256.Size]byte, error) {
	cand := req.Candidate
	cand.TimestampMs = 0
	nodeID := ""
	if req.Node != nil {
		nodeID = req.Node.NodeID
	}
	b, err := json.Marshal(struct {
		Messages          []spec.Message
		Candidate         TranscriptSegmentPayload
		Turn              int
		AdminInstructions []string
		AdminOnly         bool
		CoveredSignals    []string
		Directions        []string
		WrapUp            bool
		Node              string
		Question          string
	}{req.Messages, cand, req.Turn, req.AdminInstructions, req.AdminOnly, req.CoveredSignals, req.Directions, req.WrapUp, nodeID, req.Question})
	if err != nil {
		return [sha256.Size]byte{}, fmt.Errorf("speculation key: %w", err)
	}
	return sha256.Sum256(b), nil
}

// examinerReply is SubmitTurn's examiner call: the pending speculation's reply when it was made for
// this very request by this examiner, else a call now. Called without c.mu.
func (c *Controller) examinerReply(ctx context.Context, req *ExaminerRequest) (*ExaminerReply, error) {
	c.mu.Lock()
	ex := c.ex
	sl := &c.speculation
	s := sl.s
	sl.s = nil
	if s != nil {
		key, err := requestKey(req)
		if err != nil || key != s.key || s.ex != ex || s.exam != c.exam {
			s.cancel()
			sl.stats.Discarded++
			c.unusedSpeculation(s)
			c.log.Debug("speculation discarded: the turn or the state changed", "turn", req.Turn)
			s = nil
		}
	}
	c.mu.Unlock()
	if s != nil {
		select {
		case <-s.done:
		case <-ctx.Done():
			s.cancel()
			c.countSpeculation(false, s)
			return nil, ctx.Err()
		}
		if s.err == nil && s.reply != nil {
			c.countSpeculation(true, s)
			if req.OnArguments != nil {
				for _, p := range s.partials { // what a streaming call would have shown on the way
					req.OnArguments(p)
				}
			}
			r := *s.reply
			return &r, nil
		}
		c.countSpeculation(false, s)
	}
	return ex.Observe(ctx, req)
}

// countSpeculation counts s reused or discarded; a discarded one's usage is recorded.
func (c *Controller) countSpeculation(reused bool, s *speculation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sl := &c.speculation
	if reused {
		sl.stats.Reused++
	} else {
		sl.stats.Discarded++
		c.unusedSpeculation(s)
	}
}
