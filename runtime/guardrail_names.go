package runtime

import (
	"log/slog"
	"slices"

	"github.com/examtui/examtui/spec"
)

// GuardrailKind groups the names a guardrail_triggered event can carry by what fired.
type GuardrailKind int

// Guardrail kinds.
const (
	GuardrailKindUnknown GuardrailKind = iota
	// GuardrailKindFilter: an output filter the exam configures (outputValidation.filters).
	GuardrailKindFilter
	// GuardrailKindAlwaysOn: an output guardrail no exam can turn off.
	GuardrailKindAlwaysOn
	// GuardrailKindSupport: judging reassurance to an anxious candidate replaced.
	GuardrailKindSupport
	// GuardrailKindLimit: a limit that moved the exam on (time, follow-ups, off-topic, distress,
	// silence).
	GuardrailKindLimit
)

func (k GuardrailKind) String() string {
	switch k {
	case GuardrailKindFilter:
		return "filter"
	case GuardrailKindAlwaysOn:
		return "always_on"
	case GuardrailKindSupport:
		return "support"
	case GuardrailKindLimit:
		return "limit"
	}
	return "unknown"
}

// The support guardrail's name: typed as a filter name because its interception travels as a
// filterHit. (The output filters' names are spec.FilterNames; the always-on ones' are declared
// beside their filters.)
const guardrailAnxietyNeutrality spec.FilterName = "anxiety_neutrality"

// The limits' names.
const (
	guardrailTimeBudget    = "time_budget"
	guardrailFollowUpLimit = "followup_limit"
	guardrailOffTopicLimit = "off_topic_limit"
	guardrailDistress      = "distress"
	guardrailSilence       = "silence"
)

// Guardrail is one name a guardrail_triggered event can carry.
type Guardrail struct {
	Name spec.FilterName
	Kind GuardrailKind
}

// Guardrails is every guardrail the runtime can report, declared once: candidate scripts'
// expect.guardrails, `examtui test --cover` and the docs read it, and the controller refuses
// to emit a name missing from it (TestGuardrailsDeclared).
var Guardrails = func() []Guardrail {
	var out []Guardrail
	for _, f := range spec.FilterNames {
		out = append(out, Guardrail{f, GuardrailKindFilter})
	}
	for _, f := range append(slices.Clone(IntegrityFilters), FilterOneQuestion, guardrailInstructionEcho) {
		out = append(out, Guardrail{f, GuardrailKindAlwaysOn})
	}
	for _, f := range []spec.FilterName{guardrailTimeBudget, guardrailFollowUpLimit, guardrailOffTopicLimit, guardrailDistress, guardrailSilence} {
		out = append(out, Guardrail{f, GuardrailKindLimit})
	}
	out = append(out, Guardrail{guardrailAnxietyNeutrality, GuardrailKindSupport})
	return out
}()

// GuardrailNames lists the names of Guardrails in order.
func GuardrailNames() []string {
	out := make([]string, len(Guardrails))
	for i, g := range Guardrails {
		out[i] = g.Name.String()
	}
	return out
}

// LookupGuardrail returns the guardrail called name.
func LookupGuardrail(name string) (Guardrail, bool) {
	for _, g := range Guardrails {
		if g.Name.String() == name {
			return g, true
		}
	}
	return Guardrail{}, false
}

// undeclaredGuardrail reports a guardrail event whose name is missing from Guardrails: a
// script could not expect it and coverage would not count it. The runtime's tests make it
// panic.
var undeclaredGuardrail = func(log *slog.Logger, name string) {
	log.Error("guardrail not declared in runtime.Guardrails", "guardrail", name)
}
