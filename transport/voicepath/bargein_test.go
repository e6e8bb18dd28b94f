package voicepath

import (
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
)

// TestBackchannelDecision: over the examiner's line, a voiced run shorter than a backchannel
// is held until its words are known; the words decide (a backchannel or nothing: no turn, the
// line plays on; anything else: a turn); a run past a backchannel's length cuts at once.
func TestBackchannelDecision(t *testing.T) {
	p, _ := newPath(t, newCtrl(nil))
	least := audio.DefaultBargeInSpeech
	for _, tc := range []struct {
		name   string
		voiced time.Duration
		words  string
		cut    bool // the decision cuts the line at once
		turn   bool // the words go on to the controller as a turn
	}{
		{"mm-hmm", 450 * time.Millisecond, "Mm-hmm.", false, false},
		{"yeah okay", 500 * time.Millisecond, "Yeah, okay.", false, false},
		{"right", 300 * time.Millisecond, "right", false, false},
		{"cough", 300 * time.Millisecond, "", false, false},
		{"wait", 320 * time.Millisecond, "Wait.", false, true},
		{"sorry", 400 * time.Millisecond, "Sorry?", false, true},
		{"a sentence", DefaultBackchannelLength, "Sorry, can you repeat that?", true, true},
		{"a long noise", 2 * time.Second, "", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const start = 1000
			var cut bool
			for v := least; v <= tc.voiced && !cut; v += audio.FrameDuration {
				cut = p.bargeInDecision(audio.BargeInEvidence{Voiced: v, Min: least, TurnStartMs: start})
			}
			if cut != tc.cut {
				t.Fatalf("cut = %v, want %v", cut, tc.cut)
			}
			if got := p.heldTurn(audio.FinalTranscript{Transcript: audio.Transcript{Text: tc.words}, StartMs: start}); got != tc.turn {
				t.Errorf("a turn = %v, want %v", got, tc.turn)
			}
			if p.held.Load() != -1 {
				t.Errorf("still held after its words")
			}
		})
	}
}
