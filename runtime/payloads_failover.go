package runtime

import "github.com/examtui/examtui/spec"

// EventExaminerSwitched records the controller giving up on a failing examiner: the exam either
// continues on the fallback examiner or ends (spec policies.onExaminerFailure).
const EventExaminerSwitched EventType = "examiner_switched"

// ExaminerSwitchedPayload says which examiner failed, how often in a row, and what now runs the
// exam. To is empty when the policy ended the exam instead.
type ExaminerSwitchedPayload struct {
	From      string               `json:"from"`
	To        string               `json:"to,omitempty"`
	Failures  int                  `json:"failures"`
	LastError string               `json:"lastError,omitempty"`
	Policy    spec.ExaminerFailure `json:"policy"` // offline | interrupt
	NodeID    string               `json:"nodeId,omitempty"`
}

// EventType implements Payload.
func (*ExaminerSwitchedPayload) EventType() EventType { return EventExaminerSwitched }
