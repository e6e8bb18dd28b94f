package spec

// Default output filters (pipecat-adapter §8, outputValidationFilters), in pipeline order.
var (
	DefaultPersonaBreakPatterns    = []string{"as your examiner", "according to the rubric", "i'm an ai", "the grading criteria"}
	DefaultLeadingQuestionPatterns = []string{"wouldn't you say", "don't you think", "surely you'd agree"}
)

// Filter actions: the first of each list is the default.
var filterActions = map[FilterName][]string{
	FilterPersonaBreak:     {"replace", "intercept"},
	FilterRubricLeak:       {"intercept", "replace"},
	FilterTopicContainment: {"redirect", "intercept"},
	FilterLength:           {"summarize", "split"},
	FilterLeadingQuestion:  {"rephrase", "intercept"},
}

// FilterActions returns the actions a filter accepts; the first is its default.
func FilterActions(name FilterName) []string {
	return append([]string(nil), filterActions[name]...)
}

// defaultFilters returns all five filters with the reference defaults.
func defaultFilters() []ResolvedFilter {
	return []ResolvedFilter{
		{Name: FilterPersonaBreak, Enabled: true, Action: "replace", Patterns: append([]string(nil), DefaultPersonaBreakPatterns...)},
		{Name: FilterRubricLeak, Enabled: true, Action: "intercept", CheckAgainst: "node.evidenceSignalDescriptions"},
		{Name: FilterTopicContainment, Enabled: true, Action: "redirect", CheckAgainst: "node.scenarioDomain"},
		{Name: FilterLength, Enabled: true, Action: "summarize", MaxChars: DefaultMaxChars},
		{Name: FilterLeadingQuestion, Enabled: true, Action: "rephrase", Patterns: append([]string(nil), DefaultLeadingQuestionPatterns...)},
	}
}

// resolveFilters applies the author's overrides to the defaults. Overrides replace what they
// set: patterns given replace the default patterns rather than adding to them, so an author
// can narrow a filter.
func resolveFilters(ov *OutputValidation) []ResolvedFilter {
	out := defaultFilters()
	if ov == nil {
		return out
	}
	for _, f := range ov.Filters {
		for i := range out {
			r := &out[i]
			if r.Name != f.Name {
				continue
			}
			if f.Enabled != nil {
				r.Enabled = *f.Enabled
			}
			if f.Action != "" {
				r.Action = f.Action
			}
			if f.Patterns != nil {
				r.Patterns = append([]string(nil), f.Patterns...)
			}
			if f.MaxChars > 0 {
				r.MaxChars = f.MaxChars
			}
		}
	}
	return out
}
