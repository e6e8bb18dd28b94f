package runtime

import (
	"context"
	"encoding/json"
	"time"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// Examiner produces one report_observation per candidate turn. Implementations: the offline
// rule-based examiner (runtime/offline) and the LLM examiner (runtime/llm).
//
// An examiner returns the raw tool-call arguments; parsing and validation are the controller's
// (decision order step 1), so a malformed reply from any examiner is handled in one place.
type Examiner interface {
	// Name identifies the examiner in the console and events ("offline", or the model name).
	Name() string
	// Observe asks for the observation of one turn. It must honour ctx's deadline.
	Observe(ctx context.Context, req *ExaminerRequest) (*ExaminerReply, error)
}

// ExaminerRequest is what an examiner is given for one turn.
type ExaminerRequest struct {
	Exam *spec.Exam
	Node *spec.CompiledNode
	// Messages is the LLM context as the controller built it: role message, task messages (with
	// queued admin instructions and summaries), and the in-node history ending with the
	// candidate's turn.
	Messages []spec.Message
	// Candidate is the turn being observed; empty text means silence.
	Candidate TranscriptSegmentPayload
	// OnArguments, when set, is called with the arguments accumulated so far while a streaming
	// examiner receives them, so the controller can decide before the call completes.
	OnArguments func(partial []byte)
	// Turn is the candidate turn number (1-based) within the exam; 0 for an admin run.
	Turn int
	// AdminInstructions are examiner instructions to apply in this reply (queued ones consumed
	// at this turn, or the one immediate instruction); they are also in Messages.
	AdminInstructions []string
	// AdminOnly marks an immediate admin run: no candidate turn, only spokenText matters.
	AdminOnly bool
	// CoveredSignals are the node's evidence targets already accepted in the ledger, so an
	// examiner can judge sufficiency across turns (the offline examiner has no memory of its own).
	CoveredSignals []string
	// Directions are the pacing beats that fired since the last call, then the standing wrap-up
	// direction: instructions to the examiner, never text to say (they are in Messages too).
	Directions []string
	// WrapUp is set once the exam's wrap-up beat has fired: the examiner should move to a close.
	WrapUp bool
	// Question is the question on the table: what a repeat, a clarification or a rephrasing
	// comes back to (the node's prompt, or the examiner's last question of its own), never a
	// procedural question such as a silence check-in's "Would you like me to repeat the question?".
	Question string
	// Language is the exam's language pack: the offline examiner speaks and listens in it.
	Language *lang.Pack `json:"-"`
}

// ExaminerReply is the raw result of one examiner call.
type ExaminerReply struct {
	// Arguments holds the report_observation arguments JSON. Nil when the model made no tool call.
	Arguments json.RawMessage
	// Content is any plain text the model produced instead of (or besides) the tool call.
	Content    string
	FirstToken time.Duration // time to first streamed token, when streaming
	Complete   time.Duration // time to the complete reply
	Attempts   int
	// Usage is what the call consumed, for a model-backed examiner; nil for one that uses no
	// model. It goes into the turn's observation event.
	Usage *TurnUsage
	// AdminResults says, per entry of the request's AdminInstructions, what this reply did with
	// it: AdminConsumed (acted on), AdminNotActionable (cannot be acted on: nothing is said
	// for it and it leaves the queue) or AdminStatusUnknown (not acted on in this reply: a
	// queued one stays queued). Nil or short means acted on: an LLM is given every instruction
	// as guidance. The offline examiner, which only acts on lines addressed to the candidate,
	// fills it in.
	AdminResults []AdminStatus
}

// adminResult is what the reply did with the request's i-th admin instruction (AdminResults).
func (r *ExaminerReply) adminResult(i int) AdminStatus {
	if r == nil || i >= len(r.AdminResults) {
		return AdminConsumed
	}
	return r.AdminResults[i]
}
