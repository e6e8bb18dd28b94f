package runtime

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/spec/lang"
)

// readCorpus reads one corpus file: a sentence per line, # comments.
func readCorpus(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVerdictCorpora runs the forbidden_action guardrail of each shipped language over its
// verdict corpus (examiner lines that judge) and its harmless corpus (lines that must pass):
// every shipped language has both, of at least 50 sentences, and the guardrail meets the
// floors below (the figures are in docs/languages.md; the rates are logged with -v).
func TestVerdictCorpora(t *testing.T) {
	floors := map[string]struct{ minCaught, maxFalse float64 }{
		"en": {0.90, 0}, "fr": {0.90, 0}, "de": {0.90, 0}, "es": {0.90, 0}, "ar": {0.90, 0},
	}
	for _, tag := range lang.Builtin().Languages() {
		t.Run(tag, func(t *testing.T) {
			p, _ := lang.Lookup(tag)
			lv := langVocabFor(p)
			var forbidden integrityFilter
			for _, f := range lv.integrityFns(vocabularyFor(p).verdictIndex()) {
				if f.name == FilterForbiddenAction {
					forbidden = f
				}
			}
			judged := func(s string) bool {
				_, _, hit := forbidden.fn(s, normalizeWords(s))
				return hit
			}
			verdicts := readCorpus(t, filepath.Join("testdata", "verdicts", tag+".verdict.txt"))
			harmless := readCorpus(t, filepath.Join("testdata", "verdicts", tag+".harmless.txt"))
			if len(verdicts) < 50 || len(harmless) < 50 {
				t.Fatalf("%d verdicts and %d harmless sentences, want at least 50 each", len(verdicts), len(harmless))
			}
			caught, falsePos := 0, 0
			for _, s := range verdicts {
				if judged(s) {
					caught++
				} else {
					t.Logf("missed: %s", s)
				}
			}
			for _, s := range harmless {
				if judged(s) {
					falsePos++
					t.Logf("false positive: %s", s)
				}
			}
			rc, rf := float64(caught)/float64(len(verdicts)), float64(falsePos)/float64(len(harmless))
			t.Logf("%s: %d/%d verdicts caught (%.0f%%), %d/%d harmless sentences flagged (%.0f%%)",
				tag, caught, len(verdicts), 100*rc, falsePos, len(harmless), 100*rf)
			fl := floors[tag]
			if rc < fl.minCaught || rf > fl.maxFalse {
				t.Errorf("%s: caught %.2f (floor %.2f), false positives %.2f (ceiling %.2f)", tag, rc, fl.minCaught, rf, fl.maxFalse)
			}
		})
	}
}
