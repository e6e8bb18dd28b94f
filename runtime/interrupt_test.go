package runtime_test

import (
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestSpeechInterruptedKeepsWhatWasHeard checks a barge-in cuts the examiner's newest line in
// the LLM's context down to what the candidate heard, and is recorded as a recovery event.
func TestSpeechInterruptedKeepsWhatWasHeard(t *testing.T) {
	for _, tc := range []struct {
		name, heard, wantCtx, wantDetail string
	}{
		{"part heard", " What would ", "What would [interrupted by the candidate]", `candidate heard: "What would"`},
		{"nothing heard", "  ", "[the candidate interrupted before hearing this line]", "candidate heard: nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ex := intoPlan(t, nil)
			ex.push(runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, SpokenText: "What would you back up first, and why?"}.String())
			h.say("I would make a plan.")
			before := len(h.rec.Events())
			if err := h.c.SpeechInterrupted(tc.heard); err != nil {
				t.Fatal(err)
			}
			evs := h.rec.Events()[before:]
			if len(evs) != 1 || evs[0].Event != runtime.EventRecovery {
				t.Fatalf("events after the interruption = %v", evs)
			}
			p, err := evs[0].Decode()
			if err != nil {
				t.Fatal(err)
			}
			if rp := p.(*runtime.RecoveryPayload); rp.Kind != runtime.RecoveryBargeIn || rp.Detail != tc.wantDetail || rp.NodeID != "plan" {
				t.Errorf("recovery = %+v", rp)
			}

			ex.push(runtimetest.Args{AnswerQuality: "partial", SpokenText: "Go on."}.String())
			h.say("Sorry, I spoke over you.")
			ex.mu.Lock()
			msgs := ex.reqs[len(ex.reqs)-1].Messages
			ex.mu.Unlock()
			last := ""
			for _, m := range msgs {
				if m.Role == "assistant" {
					last = m.Content
				}
				if strings.Contains(m.Content, "back up first") {
					t.Errorf("the unheard line reached the examiner: %q", m.Content)
				}
			}
			if last != tc.wantCtx {
				t.Errorf("examiner's newest line in context = %q, want %q", last, tc.wantCtx)
			}
		})
	}
}

// TestInterimIsShownNotDecided checks a partial transcript is published as a non-final
// segment and changes nothing the controller counts.
func TestInterimIsShownNotDecided(t *testing.T) {
	h, ex := intoPlan(t, nil)
	before := h.c.Snapshot()
	n := len(h.rec.Events())
	if err := h.c.Interim("  I would first  ", 3); err != nil {
		t.Fatal(err)
	}
	if err := h.c.Interim("   ", 0.5); err != nil {
		t.Fatal(err)
	}
	evs := h.rec.Events()[n:]
	if len(evs) != 1 {
		t.Fatalf("events = %v, want one partial segment", evs)
	}
	p, err := evs[0].Decode()
	if err != nil {
		t.Fatal(err)
	}
	seg := p.(*runtime.TranscriptSegmentPayload)
	if seg.IsFinal || seg.Text != "I would first" || seg.Confidence != 1 || seg.Speaker != runtime.SpeakerCandidate || seg.NodeID != "plan" {
		t.Errorf("partial segment = %+v", seg)
	}
	if after := h.c.Snapshot(); after.Turn != before.Turn || after.NodeID != before.NodeID {
		t.Errorf("snapshot changed: %+v → %+v", before, after)
	}
	ex.mu.Lock()
	calls := len(ex.reqs)
	ex.mu.Unlock()
	if calls != 1 {
		t.Errorf("examiner called %d times, want 1 (only the scaffolding answer)", calls)
	}
}
