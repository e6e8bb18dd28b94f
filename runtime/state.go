package runtime

// ExamState is the exam's lifecycle state (design.md, "Exam states").
type ExamState string

// Exam states: created → scaffolding → ready → in_progress ⇄ paused → completed | aborted | expired.
const (
	StateCreated     ExamState = "created"
	StateScaffolding ExamState = "scaffolding"
	StateReady       ExamState = "ready"
	StateInProgress  ExamState = "in_progress"
	StatePaused      ExamState = "paused"
	StateCompleted   ExamState = "completed"
	StateAborted     ExamState = "aborted"
	StateExpired     ExamState = "expired"
)

func (s ExamState) String() string { return string(s) }

// Terminal reports whether no further transitions are possible.
func (s ExamState) Terminal() bool {
	return s == StateCompleted || s == StateAborted || s == StateExpired
}
