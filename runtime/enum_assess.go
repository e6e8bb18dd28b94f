package runtime

// NotAssessedReason says why a candidate segment with words was not observed by the examiner
// (a not_assessed recovery_event): every such segment is either observed exactly once, and can
// become evidence, or recorded with one of these reasons, which the examiner sees in the console.
type NotAssessedReason string

// Reasons a candidate's words were not observed.
const (
	NotAssessedUnknown NotAssessedReason = ""
	// NotAssessedReturnFromPause: the words only brought the candidate back from the pause
	// they asked for ("I'm ready"); an answer given instead is observed.
	NotAssessedReturnFromPause NotAssessedReason = "return_from_pause"
	// NotAssessedFinishConfirmation: the answer to "are you sure you want to finish?".
	NotAssessedFinishConfirmation NotAssessedReason = "finish_confirmation"
	// NotAssessedNodeChanged: the exam moved on (advance, skip, a time limit, the end) while
	// the examiner was observing the words; its observation was discarded.
	NotAssessedNodeChanged NotAssessedReason = "node_changed"
	// NotAssessedExaminerFailed: the examiner gave no usable observation (an error, no tool
	// call, a malformed reply); the fallback line or the candidate's command was said.
	NotAssessedExaminerFailed NotAssessedReason = "examiner_failed"
	// NotAssessedExamPaused: an examiner had paused the exam; the words were refused.
	NotAssessedExamPaused NotAssessedReason = "exam_paused"
	// NotAssessedCancelled: the turn was cancelled before the examiner observed it.
	NotAssessedCancelled NotAssessedReason = "cancelled"
	// NotAssessedBackchannel: only a backchannel ("mm-hmm", "yeah") over the examiner's line:
	// held by the voice path, so the line played on (an overheard segment), or after a barge-in
	// had cut the line, which was then said again from the sentence it was cut in.
	NotAssessedBackchannel NotAssessedReason = "backchannel"
	// NotAssessedRestarted: the exam stopped (a crash, a kill, a lost worker) while the
	// examiner was observing the words; the resumed exam asks the question again.
	NotAssessedRestarted NotAssessedReason = "restarted"
)

// NotAssessedReasons lists every reason.
var NotAssessedReasons = []NotAssessedReason{NotAssessedReturnFromPause, NotAssessedFinishConfirmation,
	NotAssessedNodeChanged, NotAssessedExaminerFailed, NotAssessedExamPaused, NotAssessedCancelled, NotAssessedBackchannel,
	NotAssessedRestarted}

func (r NotAssessedReason) String() string { return string(r) }

// Valid reports whether r is a known reason.
func (r NotAssessedReason) Valid() bool { return isKnown(r, NotAssessedReasons) }

// ParseNotAssessedReason parses a reason.
func ParseNotAssessedReason(s string) (NotAssessedReason, error) {
	return parseEnum("not-assessed reason", s, NotAssessedReasons)
}
