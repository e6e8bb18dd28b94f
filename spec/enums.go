package spec

import "slices"

// NodeKind is the kind of an exam node.
type NodeKind string

// Node kinds.
const (
	KindScaffolding NodeKind = "scaffolding"
	KindAssessment  NodeKind = "assessment"
	KindEnd         NodeKind = "end"
)

// NodeKinds lists the valid node kinds in documentation order.
var NodeKinds = []NodeKind{KindScaffolding, KindAssessment, KindEnd}

func (k NodeKind) String() string { return string(k) }

// Valid reports whether k is a known node kind.
func (k NodeKind) Valid() bool { return slices.Contains(NodeKinds, k) }

// Reason is why the controller leaves a node.
type Reason string

// Transition reasons (docs/exam-format.md).
const (
	ReasonEvidenceSufficient Reason = "evidence_sufficient"
	ReasonFollowUpsExhausted Reason = "followups_exhausted"
	ReasonTimeExhausted      Reason = "time_exhausted"
	ReasonOffTopicLimit      Reason = "off_topic_limit"
	ReasonSkipped            Reason = "skipped"
	ReasonDistress           Reason = "distress"
	ReasonAdminAdvance       Reason = "admin_advance"
)

// Reasons lists the transition reasons in documentation order.
var Reasons = []Reason{
	ReasonEvidenceSufficient, ReasonFollowUpsExhausted, ReasonTimeExhausted,
	ReasonOffTopicLimit, ReasonSkipped, ReasonDistress, ReasonAdminAdvance,
}

func (r Reason) String() string { return string(r) }

// Valid reports whether r is a known transition reason.
func (r Reason) Valid() bool { return slices.Contains(Reasons, r) }

// ContextStrategy is how the LLM context is treated when a node is entered.
type ContextStrategy string

// Context strategies.
const (
	ContextReset            ContextStrategy = "reset"
	ContextAppend           ContextStrategy = "append"
	ContextResetWithSummary ContextStrategy = "reset_with_summary"
)

// ContextStrategies lists the valid strategies.
var ContextStrategies = []ContextStrategy{ContextReset, ContextAppend, ContextResetWithSummary}

func (c ContextStrategy) String() string { return string(c) }

// Valid reports whether c is a known strategy.
func (c ContextStrategy) Valid() bool { return slices.Contains(ContextStrategies, c) }

// FilterName names an output validation filter.
type FilterName string

// Output filters, in the order the pipeline runs them.
const (
	FilterPersonaBreak     FilterName = "persona_break"
	FilterRubricLeak       FilterName = "rubric_leak"
	FilterTopicContainment FilterName = "topic_containment"
	FilterLength           FilterName = "length"
	FilterLeadingQuestion  FilterName = "leading_question"
)

// FilterNames lists the filters in pipeline order (from FilterDefs).
var FilterNames = func() []FilterName {
	out := make([]FilterName, len(FilterDefs))
	for i, d := range FilterDefs {
		out[i] = d.Name
	}
	return out
}()

func (f FilterName) String() string { return string(f) }

// Valid reports whether f is a known filter.
func (f FilterName) Valid() bool { return slices.Contains(FilterNames, f) }
