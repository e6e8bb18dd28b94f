package runtime

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/examtui/examtui/spec"
)

// TestIntegrityFilters covers the output guardrails and the filter fixes of issue 18 on the
// test exam's plan node: what must never be said is removed, legitimate speech is left alone,
// and no filter leaves the candidate without a question.
func TestIntegrityFilters(t *testing.T) {
	nf := planFilters(t, nil)
	tests := []struct {
		name   string
		in     string
		want   []spec.FilterName
		out    string // exact output, when set
		outNot []string
	}{
		{name: "hint", in: "Here is a hint: think about backups. What would you do first?", want: []spec.FilterName{FilterHintRefusal},
			out: "What would you do first?"},
		{name: "refusing a hint is not a hint", in: "I can't give hints, but take your time. What would you do first?"},
		{name: "revealed answer", in: "The answer is a rehearsal. What would you rehearse?", want: []spec.FilterName{FilterForbiddenAction},
			out: "What would you rehearse?"},
		{name: "praise alone", in: "That's correct, excellent answer, well done!", want: []spec.FilterName{FilterForbiddenAction}, out: "Thank you."},
		{name: "praise clause before a question", in: "Good point, but what would you test on the servers?", want: []spec.FilterName{FilterForbiddenAction},
			out: "What would you test on the servers?"},
		{name: "judgement", in: "That's wrong. What else could go wrong with the servers?", want: []spec.FilterName{FilterForbiddenAction},
			out: "What else could go wrong with the servers?"},
		{name: "equity", in: "For someone your age this is hard, so let me make it easier. What is the risk?", want: []spec.FilterName{FilterEquity},
			out: "What is the risk?"},
		{name: "question kept after a praise clause", in: "Well done, is that your final answer?", want: []spec.FilterName{FilterForbiddenAction},
			out: "Is that your final answer?"},
		{name: "question lost to a filter is replaced", in: "Perfect, exactly right?", want: []spec.FilterName{FilterForbiddenAction},
			out: neutralFollowUp},
		{name: "neutral probe", in: "Can you explain your reasoning in more detail?"},
		{name: "procedural line", in: "Let's stop here for a moment. Are you ready to continue?"},
		{name: "real drift still redirected", in: "Let's talk about football tactics and the world cup final instead.", want: []spec.FilterName{spec.FilterTopicContainment}},
		{name: "leading keeps the referent", in: "Surely you'd agree that a weekend move is too risky?", want: []spec.FilterName{spec.FilterLeadingQuestion},
			out: "What is your view on whether a weekend move is too risky?"},
		{name: "leading after a statement", in: "The servers are old. A backup is essential, wouldn't you say?", want: []spec.FilterName{spec.FilterLeadingQuestion},
			out: "The servers are old. What is your view on whether a backup is essential?"},
		{name: "leading with nothing left asks the node's question", in: "Don't you think?", want: []spec.FilterName{spec.FilterLeadingQuestion},
			out: "What do you think of this plan?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, hits := nf.runFilters(tt.in)
			var got []string
			for _, h := range hits {
				got = append(got, h.Name.String())
			}
			if strings.Join(got, ",") != strings.Join(names(tt.want), ",") {
				t.Fatalf("fired %v, want %v (out %q)", got, tt.want, out)
			}
			if tt.out != "" && out != tt.out {
				t.Fatalf("out %q, want %q", out, tt.out)
			}
			if len(hits) == 0 && out != tt.in {
				t.Fatalf("changed without a hit: %q", out)
			}
			if strings.Contains(tt.in, "?") && !strings.Contains(out, "?") {
				t.Fatalf("out %q: left without a question", out)
			}
		})
	}
}

// planFilters builds the filters of the test exam's plan node, with outputValidation yaml.
func planFilters(t *testing.T, outputValidation []string) *nodeFilters {
	t.Helper()
	exam := compileEdited(t, func(s string) string { return s + "\n" + strings.Join(outputValidation, "\n") + "\n" })
	return buildNodeFilters(exam, exam.Node("plan"))
}

func TestLengthFiltersKeepQuestionAndLimit(t *testing.T) {
	long := strings.Repeat("The servers in the basement are old and the weekend is short for the whole move. ", 8) + "What would you test first?"
	t.Run("summarize", func(t *testing.T) {
		nf := planFilters(t, nil)
		out, parts, _ := nf.runFilters(long)
		if !strings.HasSuffix(out, "What would you test first?") || utf8.RuneCountInString(out) > 500 || len(parts) != 1 {
			t.Fatalf("out (%d) %q", utf8.RuneCountInString(out), out)
		}
	})
	t.Run("split then a leading rewrite", func(t *testing.T) {
		nf := planFilters(t, []string{"outputValidation:", "  filters:", "    - {name: length, action: split, maxChars: 120}"})
		// One question only: a second would be dropped by one_question before the rewrite.
		statements := strings.TrimSuffix(long, "What would you test first?")
		out, parts, _ := nf.runFilters(statements + "Surely you'd agree that the backup comes first?")
		for _, p := range parts {
			if utf8.RuneCountInString(p) > 120 {
				t.Fatalf("part of %d characters: %q", utf8.RuneCountInString(p), p)
			}
		}
		if !strings.Contains(out, "What is your view on whether the backup comes first?") {
			t.Fatalf("out %q", out)
		}
	})
}
