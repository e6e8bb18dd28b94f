package runtime

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// ReadVerdictCorpus reads one sentence per line of testdata/verdict/name ("#" lines are
// comments). Exported for the external tests (verdict_test.go).
func ReadVerdictCorpus(t testing.TB, name string) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/verdict/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" && !strings.HasPrefix(s, "#") {
			out = append(out, s)
		}
	}
	return out
}

// TestVerdictsNeverSpoken sends every verdict of the corpus through the one filter pipeline, as
// an examiner's reply ahead of a question and as a line of the controller's own: what is left
// to say holds no verdict, and the question survives. The rewordings that reached
// candidates are the corpus's first lines.
func TestVerdictsNeverSpoken(t *testing.T) {
	exam := basicExam(t)
	nf := buildNodeFilters(exam, exam.Node("plan"))
	for _, name := range []string{"verdicts.txt", "heldout-verdicts.txt"} {
		for _, v := range ReadVerdictCorpus(t, name) {
			for _, run := range []func(string) (string, []string, []filterHit){nf.runFilters, nf.runOwnFilters} {
				out, _, _ := run(v + " What would you test first on the servers?")
				for _, s := range SplitSentences(out) {
					if why := defaultVocabulary.verdictIndex().detectIn(s, normalizeWords(s)); why != "" {
						t.Errorf("%q: said %q (%s)", v, out, why)
					}
				}
				if strings.Contains(out, v) {
					t.Errorf("%q was said: %q", v, out)
				}
			}
		}
	}
}
