package spec

import "slices"

// ExaminerFailure is what an exam does when its examiner (an LLM) fails several turns in a row:
// the runtime either carries on with the offline rule-based examiner or ends the exam.
type ExaminerFailure string

// Examiner failure policies. An absent policies.onExaminerFailure means ExaminerFailureOffline.
const (
	ExaminerFailureOffline   ExaminerFailure = "offline"
	ExaminerFailureInterrupt ExaminerFailure = "interrupt"
)

// ExaminerFailures lists the accepted values.
var ExaminerFailures = []ExaminerFailure{ExaminerFailureOffline, ExaminerFailureInterrupt}

func (f ExaminerFailure) String() string { return string(f) }

// Valid reports whether f is one of ExaminerFailures.
func (f ExaminerFailure) Valid() bool { return slices.Contains(ExaminerFailures, f) }

// OnExaminerFailure is the exam's policy with its default applied.
func (p ResolvedPolicies) OnExaminerFailure() ExaminerFailure {
	if p.ExaminerFailure == "" {
		return ExaminerFailureOffline
	}
	return p.ExaminerFailure
}
