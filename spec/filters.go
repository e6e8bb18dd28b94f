package spec

import "strings"

// FilterDef is one output filter an exam can configure: its name, the actions it accepts (the
// first is its default), which override fields apply to it, and its defaults.
type FilterDef struct {
	Name         FilterName
	Actions      []string
	Patterns     bool     // takes patterns (which replace Defaults)
	MaxChars     bool     // takes maxChars
	Defaults     []string // default patterns
	CheckAgainst string   // what the filter compares the text with
}

// FilterDefs is every configurable output filter in pipeline order (pipecat-adapter §8,
// outputValidationFilters): the one table that FilterNames, the checker, the compiled defaults,
// the JSON Schema's parity test and the runtime read.
var FilterDefs = []FilterDef{
	{Name: FilterPersonaBreak, Actions: []string{"replace", "intercept"}, Patterns: true,
		Defaults: []string{"as your examiner", "according to the rubric", "i'm an ai", "the grading criteria"}},
	{Name: FilterRubricLeak, Actions: []string{"intercept", "replace"}, CheckAgainst: "node.evidenceSignalDescriptions"},
	{Name: FilterTopicContainment, Actions: []string{"redirect", "intercept"}, CheckAgainst: "node.scenarioDomain"},
	{Name: FilterLength, Actions: []string{"summarize", "split"}, MaxChars: true},
	{Name: FilterLeadingQuestion, Actions: []string{"rephrase", "intercept"}, Patterns: true,
		Defaults: []string{"wouldn't you say", "don't you think", "surely you'd agree"}},
}

// LookupFilter returns the definition of the filter called name.
func LookupFilter(name FilterName) (FilterDef, bool) {
	for _, d := range FilterDefs {
		if d.Name == name {
			return d, true
		}
	}
	return FilterDef{}, false
}

// FilterActions returns the actions a filter accepts; the first is its default.
func FilterActions(name FilterName) []string {
	d, _ := LookupFilter(name)
	return append([]string(nil), d.Actions...)
}

// DefaultPatterns returns a filter's default patterns (none for a filter without patterns).
func DefaultPatterns(name FilterName) []string {
	d, _ := LookupFilter(name)
	return append([]string(nil), d.Defaults...)
}

// defaultFilters returns every filter with its defaults.
func defaultFilters() []ResolvedFilter {
	out := make([]ResolvedFilter, len(FilterDefs))
	for i, d := range FilterDefs {
		out[i] = ResolvedFilter{Name: d.Name, Enabled: true, Action: d.Actions[0], CheckAgainst: d.CheckAgainst,
			Patterns: append([]string(nil), d.Defaults...)}
		if d.MaxChars {
			out[i].MaxChars = DefaultMaxChars
		}
	}
	return out
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

// filtersTaking names the filters for which takes holds ("persona_break and leading_question").
func filtersTaking(takes func(FilterDef) bool) string {
	var names []string
	for _, d := range FilterDefs {
		if takes(d) {
			names = append(names, string(d.Name))
		}
	}
	switch len(names) {
	case 0:
		return "no filter"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
