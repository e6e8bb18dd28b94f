package runtime

import (
	"context"
	"fmt"
	"strings"
)

// The controller's invariant about the candidate's words: every final candidate segment that
// carries words is either observed by the examiner exactly once (a valid observation that is
// not discarded, which can become evidence) or recorded as a not_assessed recovery_event with
// its reason (NotAssessedReason), which the console's transcript and Debug view show. The
// conduct property test and fuzzer (conduct_test.go) check it on every event stream.

// notAssessed records that the candidate's words in segment segID (turn) were not observed by
// the examiner, and why. Silence carries no words and needs no record. Caller holds mu.
func (c *Controller) notAssessed(nodeID string, turn int, segID, text string, reason NotAssessedReason, detail string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	c.emit(&RecoveryPayload{Kind: RecoveryNotAssessed, NodeID: nodeID, SegmentID: segID, Turn: turn, Reason: reason, Detail: detail})
}

// Overheard records words the candidate said that a transport does not hand over as a turn:
// a backchannel held over the examiner's line ("mm-hmm" while the line plays on,
// NotAssessedBackchannel), or words recognised after the input switched away from voice
// (NotAssessedCancelled). They go into the transcript as a final segment marked overheard,
// with a not_assessed naming it and the reason, and change nothing else: no examiner call, the
// line being said and its cut stand, a pending finish confirmation still waits, the examiner's
// context does not hear them, the silence clock is the voice activity's (UserActivity). A resume replays the segment the same way. Silence (no words)
// records nothing; after the exam's end, or before its start, nothing can be recorded and the
// call fails as SubmitTurn would.
func (c *Controller) Overheard(ctx context.Context, t Turn, reason NotAssessedReason, detail string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := t.validate(); err != nil {
		return err
	}
	if !reason.Valid() {
		return fmt.Errorf("%w: not-assessed reason %q", ErrInvalidTurn, reason)
	}
	text := strings.TrimSpace(t.Text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.active(); err != nil {
		return err
	}
	if text == "" {
		return nil
	}
	c.turn++
	c.segSeq++
	seg := c.candidateSegment(&t, text)
	seg.Overheard = true
	c.emit(&seg)
	c.notAssessed(seg.NodeID, c.turn, seg.SegmentID, text, reason, detail)
	return c.sinkErr
}
