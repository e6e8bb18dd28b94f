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

// corpusRates runs judged over a verdict and a harmless corpus and returns the share of
// verdicts caught and of harmless lines flagged, logging each miss and false positive.
func corpusRates(t *testing.T, judged func(string) bool, verdicts, harmless []string) (caught, flagged float64) {
	t.Helper()
	c, f := 0, 0
	for _, s := range verdicts {
		if judged(s) {
			c++
		} else {
			t.Logf("missed: %s", s)
		}
	}
	for _, s := range harmless {
		if judged(s) {
			f++
			t.Logf("false positive: %s", s)
		}
	}
	return float64(c) / float64(len(verdicts)), float64(f) / float64(len(harmless))
}

// TestVerdictCorpora runs the forbidden_action guardrail of each shipped language over its
// verdict corpus (examiner lines that judge) and its harmless corpus (lines that must pass):
// every shipped language has both, of at least 50 sentences, and a held-out pair of at least
// 20 each that the language's verdict words were not tuned on. The guardrail meets the floors
// below on both (the figures are in docs/languages.md; the rates are logged with -v).
func TestVerdictCorpora(t *testing.T) {
	const minCaught, maxFlagged = 0.98, 0.02
	heldOutFloor := map[string]float64{"en": 0.98, "fr": 0.95, "de": 0.95, "es": 0.95, "ar": 0.95}
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
			dir := filepath.Join("testdata", "verdicts")
			verdicts := readCorpus(t, filepath.Join(dir, tag+".verdict.txt"))
			harmless := readCorpus(t, filepath.Join(dir, tag+".harmless.txt"))
			if len(verdicts) < 50 || len(harmless) < 50 {
				t.Fatalf("%d verdicts and %d harmless sentences, want at least 50 each", len(verdicts), len(harmless))
			}
			rc, rf := corpusRates(t, judged, verdicts, harmless)
			t.Logf("%s: %d verdicts caught %.0f%%, %d harmless sentences flagged %.0f%%", tag, len(verdicts), 100*rc, len(harmless), 100*rf)
			if rc < minCaught || rf > maxFlagged {
				t.Errorf("%s: caught %.2f (floor %.2f), false positives %.2f (ceiling %.2f)", tag, rc, minCaught, rf, maxFlagged)
			}
			hv, hh := heldOut(t, tag)
			if len(hv) < 20 || len(hh) < 20 {
				t.Fatalf("held out: %d verdicts and %d harmless sentences, want at least 20 each", len(hv), len(hh))
			}
			hc, hf := corpusRates(t, judged, hv, hh)
			t.Logf("%s held out: %d verdicts caught %.0f%%, %d harmless sentences flagged %.0f%%", tag, len(hv), 100*hc, len(hh), 100*hf)
			if hc < heldOutFloor[tag] || hf > maxFlagged {
				t.Errorf("%s held out: caught %.2f (floor %.2f), false positives %.2f (ceiling %.2f)", tag, hc, heldOutFloor[tag], hf, maxFlagged)
			}
		})
	}
}

// heldOut reads a language's held-out corpora: English's are the verdict detector's own
// (testdata/verdict), the others' are under testdata/verdicts/heldout.
func heldOut(t *testing.T, tag string) (verdicts, harmless []string) {
	if tag == "en" {
		return readCorpus(t, filepath.Join("testdata", "verdict", "heldout-verdicts.txt")),
			readCorpus(t, filepath.Join("testdata", "verdict", "heldout-harmless.txt"))
	}
	dir := filepath.Join("testdata", "verdicts", "heldout")
	return readCorpus(t, filepath.Join(dir, tag+".verdict.txt")), readCorpus(t, filepath.Join(dir, tag+".harmless.txt"))
}
