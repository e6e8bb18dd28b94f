package runtime

import (
	"github.com/examtui/examtui/spec/lang"

	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzOutputFilters feeds arbitrary examiner text (what an LLM may send) through the whole
// pipeline: it never panics, never leaves a question-less reply when one was asked, never lets
// a forbidden phrase through, and keeps every part within maxChars. The phrase index agrees
// with the plain word-boundary matcher.
func FuzzOutputFilters(f *testing.F) {
	for _, s := range []string{
		"Here is a hint: the answer is a second buffet line. What would you do?",
		"That's correct, excellent answer, well done!",
		"Good point, but what would it cost?",
		"Surely you'd agree that a weekend move is too risky?",
		"Can you explain your reasoning in more detail?",
		"Your accent is lovely. For someone your age this is hard?",
		strings.Repeat("The servers are old and the weekend is short. ", 20) + "What first?",
		"hints? hint... Hintses, WELL-DONE!! ¿perfecto?",
	} {
		f.Add(s)
	}
	nf := planFiltersFuzz(f)
	en := lang.English().Vocabulary
	all := union(en.Hint, en.Reveal, en.Verdict, en.Praise, en.Equity)
	idx := newPhraseIndex(all)
	f.Fuzz(func(t *testing.T, in string) {
		if !utf8.ValidString(in) || len(in) > 4000 {
			return
		}
		norm := normalizeWords(in)
		if (idx.first(norm) != "") != (firstMatch(norm, all) != "") {
			t.Fatalf("phrase index %q vs matcher %q on %q", idx.first(norm), firstMatch(norm, all), in)
		}
		out, parts, _ := nf.runFilters(in)
		if hasQuestion(in) && strings.TrimSpace(in) != "?" && !hasQuestion(out) {
			t.Fatalf("%q → %q: the question was lost", in, out)
		}
		for _, p := range parts {
			if utf8.RuneCountInString(p) > nf.maxChars {
				t.Fatalf("part of %d runes > %d", utf8.RuneCountInString(p), nf.maxChars)
			}
		}
		for _, sentence := range SplitSentences(out) { // the filter judges sentence by sentence
			if m := forbiddenMatchEN(normalizeWords(sentence)); !m.none() {
				t.Fatalf("%q → %q still has %s", in, out, m)
			}
		}
	})
}

func planFiltersFuzz(f *testing.F) *nodeFilters {
	exam := compileEdited(f, func(s string) string { return s })
	return buildNodeFilters(exam, exam.Node("plan"))
}
