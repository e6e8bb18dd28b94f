package runtime

// DecisionAction is what the controller did with an observation (observation.decision.action).
type DecisionAction string

// Decision actions.
const (
	DecisionUnknown    DecisionAction = ""
	DecisionCommand    DecisionAction = "command"    // a candidate command was dispatched
	DecisionTransition DecisionAction = "transition" // the exam moved to another node
	DecisionFollowUp   DecisionAction = "follow_up"  // a follow-up question was asked
	DecisionContinue   DecisionAction = "continue"   // the node goes on (also the fallback after an unusable reply)
	DecisionEnd        DecisionAction = "end"        // the exam ended (an unconfirmed finish)
	DecisionDiscarded  DecisionAction = "discarded"  // the node changed during the examiner call
)

// DecisionActions lists every decision action.
var DecisionActions = []DecisionAction{DecisionCommand, DecisionTransition, DecisionFollowUp, DecisionContinue,
	DecisionEnd, DecisionDiscarded}

func (a DecisionAction) String() string { return string(a) }

// Valid reports whether a is a known decision action.
func (a DecisionAction) Valid() bool { return isKnown(a, DecisionActions) }

// ParseDecisionAction parses a decision action.
func ParseDecisionAction(s string) (DecisionAction, error) {
	return parseEnum("decision action", s, DecisionActions)
}
