package runtime

import "github.com/examtui/examtui/spec"

// ExitReason says why the exam left a node (node_exit.reason). A transition carries the spec's
// transition reason (spec.Reason, converted by TransitionExit); an exit that leads to no other
// node carries one of the words below.
type ExitReason string

// Exit reasons that are not transitions.
const (
	ExitUnknown ExitReason = ""
	// ExitEnded: the exam was ended early (an end control, or the examiner-failure policy).
	ExitEnded ExitReason = "ended"
	// ExitEndNode: the exam reached its end node and is complete.
	ExitEndNode ExitReason = "end"
	// ExitFinished: the candidate confirmed finishing the exam.
	ExitFinished ExitReason = "finished"
)

// ExitReasons lists the exit reasons that are not transitions; every spec.Reasons entry is an
// exit reason too.
var ExitReasons = []ExitReason{ExitEnded, ExitEndNode, ExitFinished}

// TransitionExit is the exit reason of a transition taken for r.
func TransitionExit(r spec.Reason) ExitReason { return ExitReason(r) }

// Transition returns the transition reason r carries, or "" when r is not a transition (the
// zero value or one of ExitReasons). A reason this version does not know is returned as it is.
func (r ExitReason) Transition() spec.Reason {
	if r == ExitUnknown || isKnown(r, ExitReasons) {
		return ""
	}
	return spec.Reason(r)
}

func (r ExitReason) String() string { return string(r) }

// Valid reports whether r is one of ExitReasons or a known transition reason.
func (r ExitReason) Valid() bool { return isKnown(r, ExitReasons) || spec.Reason(r).Valid() }

// ParseExitReason parses an exit reason: one of ExitReasons or a transition reason.
func ParseExitReason(s string) (ExitReason, error) {
	if spec.Reason(s).Valid() {
		return ExitReason(s), nil
	}
	return parseEnum("exit reason", s, ExitReasons)
}
