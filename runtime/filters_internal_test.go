package runtime

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/examtui/examtui/spec"
)

func TestOutputFilters(t *testing.T) {
	exam := basicExam(t)
	nf := buildNodeFilters(exam, exam.Node("plan"))
	tests := []struct {
		name    string
		in      string
		want    []spec.FilterName // filters that fire, in order
		outHas  string            // the validated text contains this
		outNot  string            // and not this
		maxRune int
	}{
		{name: "clean", in: "What could go wrong with the migration plan?", outHas: "What could go wrong"},
		{name: "persona break", in: "As your examiner, I must stay neutral. What would you test first on the servers?",
			want: []spec.FilterName{spec.FilterPersonaBreak}, outNot: "examiner", outHas: "What would you test first"},
		{name: "persona break builtin", in: "As an AI language model I cannot say.", want: []spec.FilterName{spec.FilterPersonaBreak}, outHas: neutralFollowUp},
		{name: "rubric word", in: "The rubric rewards naming risks. What else about the plan?", want: []spec.FilterName{spec.FilterRubricLeak}, outNot: "rubric"},
		{name: "signal id", in: "You showed names risk there. Tell me about the backup plan.", want: []spec.FilterName{spec.FilterRubricLeak}, outNot: "names risk"},
		{name: "signal id snake", in: "That counts as proposes_fix. What about the weekend?", want: []spec.FilterName{spec.FilterRubricLeak}, outNot: "proposes_fix"},
		{name: "level name", in: "That answer is at the analysis level. Continue with the plan.", want: []spec.FilterName{spec.FilterRubricLeak}, outNot: "analysis level"},
		{name: "level word alone is fine", in: "Could you give an analysis of the weekend plan?"},
		{name: "description n-gram", in: "I want you to identify a specific risk in the plan. Which servers?", want: []spec.FilterName{spec.FilterRubricLeak}},
		{name: "off topic", in: "Let us talk about football clubs and their star players tonight, shall we?",
			want: []spec.FilterName{spec.FilterTopicContainment}, outHas: "What do you think of this plan?"},
		{name: "short neutral line passes topic", in: "Could you say more?"},
		{name: "scenario word keeps topic", in: "Imagine nothing has been tested before then; how would you feel about that?"},
		{name: "length shortened", in: strings.Repeat("The servers must be checked carefully before the weekend. ", 12),
			want: []spec.FilterName{spec.FilterLength}, maxRune: 500},
		{name: "leading question", in: "Don't you think testing first is better for the servers?", want: []spec.FilterName{spec.FilterLeadingQuestion},
			outHas: "What is your view on whether testing first is better for the servers?", outNot: "Don't you think"},
		{name: "two filters in order", in: "According to the rubric you are fine. Surely you'd agree the weekend plan is risky?",
			want: []spec.FilterName{spec.FilterPersonaBreak, spec.FilterLeadingQuestion}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, parts, hits := nf.runFilters(tt.in)
			var got []spec.FilterName
			for _, h := range hits {
				got = append(got, h.Name)
				if h.Original == "" || h.Replacement == h.Original {
					t.Errorf("hit %s without original/replacement: %+v", h.Name, h)
				}
			}
			if strings.Join(names(got), ",") != strings.Join(names(tt.want), ",") {
				t.Fatalf("filters fired %v, want %v (out %q)", got, tt.want, out)
			}
			if tt.outHas != "" && !strings.Contains(out, tt.outHas) {
				t.Errorf("out %q lacks %q", out, tt.outHas)
			}
			if tt.outNot != "" && strings.Contains(strings.ToLower(out), strings.ToLower(tt.outNot)) {
				t.Errorf("out %q still has %q", out, tt.outNot)
			}
			if tt.maxRune > 0 && utf8.RuneCountInString(out) > tt.maxRune {
				t.Errorf("out has %d runes", utf8.RuneCountInString(out))
			}
			if len(parts) == 0 {
				t.Errorf("no parts")
			}
		})
	}
}

func names(fs []spec.FilterName) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.String()
	}
	return out
}

func TestOutputFiltersConfigured(t *testing.T) {
	src := `
outputValidation:
  filters:
    - name: persona_break
      patterns: ["between you and me"]
    - name: length
      action: split
      maxChars: 60
    - name: leading_question
      enabled: false
`
	exam := compileEdited(t, func(s string) string { return s + src })
	nf := buildNodeFilters(exam, exam.Node("plan"))
	if _, _, hits := nf.runFilters("Between you and me, the servers are fine. What next?"); len(hits) != 1 || hits[0].Name != spec.FilterPersonaBreak {
		t.Errorf("custom persona pattern: hits %+v", hits)
	}
	if _, _, hits := nf.runFilters("Don't you think the plan for the servers is risky?"); len(hits) != 0 {
		t.Errorf("disabled leading_question fired: %+v", hits)
	}
	out, parts, hits := nf.runFilters("The servers move this weekend. Nothing was tested before. What would you check first?")
	if len(hits) != 1 || hits[0].Action != "split" || len(parts) < 2 {
		t.Fatalf("split: out %q parts %q hits %+v", out, parts, hits)
	}
	for _, p := range parts {
		if utf8.RuneCountInString(p) > 60 {
			t.Errorf("part over 60 runes: %q", p)
		}
	}
}

func TestNeutralizeReassurance(t *testing.T) {
	for _, tt := range []struct {
		in  string
		hit bool
	}{
		{"Good answer! What else would you test?", true},
		{"You're on the right track. Keep going.", true},
		{"Take your time. What would you test first?", false},
	} {
		out, _, hit := neutralizeReassurance(tt.in)
		if hit != tt.hit || (hit && out != calmSupportText) {
			t.Errorf("neutralizeReassurance(%q) = %q, %v", tt.in, out, hit)
		}
	}
}
