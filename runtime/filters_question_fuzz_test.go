package runtime

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzOneQuestion keeps the one_question filter's promise on any line: never more than one
// question, never none when the line had one, nothing added (each kept part was in the line),
// and a kept line passes unchanged.
func FuzzOneQuestion(f *testing.F) {
	for _, s := range []string{
		"What would you do? How much would it cost? And who would do the work?",
		"Thanks. Could you say more. Why that one?", "What?Why?!", "Good. Take your time.", "",
		"(What would you change?) \"How?\" And then?", "So, what's next. how'd you pay for it", "Have a think. Do you agree?",
		"Is it? Is it… really?", "¿Qué harías? ¿Por qué?", "what? ", "?", "? ?", "Could you… What would you do?",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !utf8.ValidString(in) {
			return
		}
		out, _, hit := langVocabFor(nil).questionRules.oneQuestionFilter(in, "")
		n, m := QuestionCount(in), QuestionCount(out)
		if m > 1 {
			t.Fatalf("%q -> %q: %d questions left", in, out, m)
		}
		if n >= 1 && m != 1 {
			t.Fatalf("%q (%d questions) -> %q: %d questions left", in, n, out, m)
		}
		if hit != (n > 1) {
			t.Fatalf("%q: %d questions, hit %v", in, n, hit)
		}
		parts := langVocabFor(nil).questionRules.questionParts(in)
		for _, p := range langVocabFor(nil).questionRules.questionParts(out) {
			if !slices.Contains(parts, p) {
				t.Fatalf("%q -> %q: %q was not in the line", in, out, p)
			}
		}
		if again, _, hit2 := langVocabFor(nil).questionRules.oneQuestionFilter(out, ""); hit2 || again != out {
			t.Fatalf("%q -> %q -> %q: the kept line was changed again", in, out, again)
		}
	})
}
