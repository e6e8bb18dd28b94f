package roomcheck_test

import (
	"testing"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestHeardAt: the "whisper-scores" benchmark's script hears every said line at Whisper's
// typical confidence for a clean answer, well above its failure level (audio.FailedConfidence)
// and well below the 1.000 of the room's grammar recogniser; a line already heard lower keeps
// its confidence, other steps get none, and the original script is unchanged.
func TestHeardAt(t *testing.T) {
	if whisperTypical < 0.7 || whisperTypical > 0.8 || whisperTypical < 2*audio.FailedConfidence {
		t.Fatalf("whisperTypical %.3f: want in [0.7, 0.8], far from the failure level %.2f", whisperTypical, audio.FailedConfidence)
	}
	script, _ := runtimetest.Rehearsal(t)
	low := 0.4
	orig := *script
	orig.Turns = append([]headless.TurnStep(nil), script.Turns...)
	orig.Turns[0].Confidence = &low
	got := heardAt(&orig, whisperTypical)
	said := 0
	for i, tn := range got.Turns {
		switch {
		case tn.Say == nil:
			if tn.Confidence != nil {
				t.Errorf("turn %d (%s) has a confidence", i, tn.Kind())
			}
		case i == 0:
			if tn.Confidence == nil || *tn.Confidence != low {
				t.Errorf("turn 0 heard at %v, want its own %.2f", tn.Confidence, low)
			}
			said++
		default:
			if tn.Confidence == nil || *tn.Confidence != whisperTypical {
				t.Errorf("turn %d heard at %v, want %.3f", i, tn.Confidence, whisperTypical)
			}
			said++
		}
	}
	if said < 5 {
		t.Errorf("%d said lines, want the rehearsal's (at least 5)", said)
	}
	for i, tn := range script.Turns {
		if tn.Confidence != nil {
			t.Errorf("the original script's turn %d now has a confidence", i)
		}
	}
}
