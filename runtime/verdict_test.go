package runtime_test

import (
	"testing"

	"github.com/examtui/examtui/runtime"
)

// TestVerdictCorpus measures the verdict detector on the committed corpus: at least 100
// sentences that tell the candidate how they did, in varied wording, and 100 harmless examiner
// sentences. Recall must be at least 98% and the false-positive rate at most 2% (the figures
// are in docs/exam-format.md). Every sentence also goes through the whole filter pipeline as an
// examiner's reply: a verdict never reaches the candidate.
func TestVerdictCorpus(t *testing.T) {
	verdicts, harmless := runtime.ReadVerdictCorpus(t, "verdicts.txt"), runtime.ReadVerdictCorpus(t, "harmless.txt")
	if len(verdicts) < 100 || len(harmless) < 100 {
		t.Fatalf("corpus too small: %d verdicts, %d harmless (want at least 100 each)", len(verdicts), len(harmless))
	}
	var missed, flagged []string
	for _, s := range verdicts {
		if _, ok := runtime.DetectVerdict(s); !ok {
			missed = append(missed, s)
		}
	}
	for _, s := range harmless {
		if why, ok := runtime.DetectVerdict(s); ok {
			flagged = append(flagged, s+"  ("+why+")")
		}
	}
	recall := 1 - float64(len(missed))/float64(len(verdicts))
	fpr := float64(len(flagged)) / float64(len(harmless))
	t.Logf("verdict detector: recall %.1f%% (%d of %d), false positives %.1f%% (%d of %d)",
		100*recall, len(verdicts)-len(missed), len(verdicts), 100*fpr, len(flagged), len(harmless))
	for _, s := range missed {
		t.Logf("missed: %s", s)
	}
	for _, s := range flagged {
		t.Logf("flagged: %s", s)
	}
	if recall < 0.98 || fpr > 0.02 {
		t.Fatalf("recall %.1f%% (want >= 98%%), false positives %.1f%% (want <= 2%%)", 100*recall, 100*fpr)
	}
}

// TestVerdictHeldOut measures the detector on sentences written after it was tuned (and
// measured before any change): the honest figure, in docs/exam-format.md with the other.
func TestVerdictHeldOut(t *testing.T) {
	verdicts, harmless := runtime.ReadVerdictCorpus(t, "heldout-verdicts.txt"), runtime.ReadVerdictCorpus(t, "heldout-harmless.txt")
	missed, flagged := 0, 0
	for _, s := range verdicts {
		if _, ok := runtime.DetectVerdict(s); !ok {
			missed++
			t.Logf("missed: %s", s)
		}
	}
	for _, s := range harmless {
		if why, ok := runtime.DetectVerdict(s); ok {
			flagged++
			t.Logf("flagged: %s (%s)", s, why)
		}
	}
	recall, fpr := 1-float64(missed)/float64(len(verdicts)), float64(flagged)/float64(len(harmless))
	t.Logf("held out: recall %.1f%% (%d of %d), false positives %.1f%% (%d of %d)",
		100*recall, len(verdicts)-missed, len(verdicts), 100*fpr, flagged, len(harmless))
	if recall < 0.98 || fpr > 0.02 {
		t.Fatalf("recall %.1f%% (want >= 98%%), false positives %.1f%% (want <= 2%%)", 100*recall, 100*fpr)
	}
}
