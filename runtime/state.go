package runtime

// ExamState is the exam's lifecycle state (docs/architecture.md, "Exam states").
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

// stateTransitions lists the legal moves of the exam state machine.
var stateTransitions = map[ExamState][]ExamState{
	StateCreated:     {StateScaffolding, StateAborted},
	StateScaffolding: {StateReady, StateAborted},
	StateReady:       {StateInProgress, StateAborted},
	StateInProgress:  {StatePaused, StateCompleted, StateAborted, StateExpired},
	StatePaused:      {StateInProgress, StateCompleted, StateAborted, StateExpired},
}

// CanTransition reports whether the state machine allows moving from s to next.
func (s ExamState) CanTransition(next ExamState) bool {
	for _, t := range stateTransitions[s] {
		if t == next {
			return true
		}
	}
	return false
}

// ExamStates lists every state in lifecycle order.
var ExamStates = []ExamState{
	StateCreated, StateScaffolding, StateReady, StateInProgress, StatePaused,
	StateCompleted, StateAborted, StateExpired,
}

// Valid reports whether s is a known state.
func (s ExamState) Valid() bool {
	for _, k := range ExamStates {
		if s == k {
			return true
		}
	}
	return false
}
