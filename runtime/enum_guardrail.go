package runtime

// GuardrailAction says what a guardrail_triggered interception did (guardrail_triggered.action).
// Which filter action rewrote the text (replace, split, drop...) is in the event's detail.
type GuardrailAction string

// Guardrail actions.
const (
	GuardrailUnknown GuardrailAction = ""
	// GuardrailOutputIntercepted: an output filter rewrote or dropped what the examiner said.
	GuardrailOutputIntercepted GuardrailAction = "output_intercepted"
	// GuardrailTransition: a limit (time, follow-ups, off-topic, distress, evidence, silence)
	// moved the exam to the next node.
	GuardrailTransition GuardrailAction = "transition"
	// GuardrailReplaced: judging reassurance to an anxious candidate was replaced by neutral
	// support.
	GuardrailReplaced GuardrailAction = "replaced"
)

// GuardrailActions lists every guardrail action.
var GuardrailActions = []GuardrailAction{GuardrailOutputIntercepted, GuardrailTransition, GuardrailReplaced}

func (a GuardrailAction) String() string { return string(a) }

// Valid reports whether a is a known guardrail action.
func (a GuardrailAction) Valid() bool { return isKnown(a, GuardrailActions) }

// ParseGuardrailAction parses a guardrail action.
func ParseGuardrailAction(s string) (GuardrailAction, error) {
	return parseEnum("guardrail action", s, GuardrailActions)
}
