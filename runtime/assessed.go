package runtime

import "strings"

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
