package runtime_test

import (
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestFalseCutResumesTheLine: a barge-in cut the examiner's line; what the candidate said turns
// out to be only a backchannel, or nothing (a cough): the line is said again from the sentence
// it was cut in, the sound is recorded not_assessed (backchannel) and no examiner call is made.
// A real interruption is a turn as before. A resumed controller keeps the same state.
func TestFalseCutResumesTheLine(t *testing.T) {
	const reply = "Thank you. Nothing was tested before the move. What would you test first?"
	for _, tc := range []struct {
		name, said, heard string
		resumed           string // "" : the words are a turn for the examiner
	}{
		{"backchannel mid-sentence", "Mm-hmm.", "Thank you. Nothing was", "Nothing was tested before the move. What would you test first?"},
		{"backchannel at a sentence end", "Yeah, okay.", "Thank you. Nothing was tested before the move.", "What would you test first?"},
		{"a cough (nothing recognised)", "", "Thank you.", "Nothing was tested before the move. What would you test first?"},
		{"a real interruption", "Sorry, can you repeat that?", "Thank you. Nothing", ""},
		{"a sentence", "Yeah, I would test the backups first.", "Thank you. Nothing", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ex := intoPlan(t, nil)
			ex.push(runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, FollowUpType: "probe", SpokenText: reply}.String())
			h.say("The plan is risky.")
			if err := h.c.SpeechInterrupted(tc.heard); err != nil {
				t.Fatal(err)
			}
			ex.push(runtimetest.Args{AnswerQuality: "partial", SpokenText: "What would you test first?"}.String())
			calls := len(ex.reqs)
			s0 := len(h.spoken())
			h.clock.Advance(time.Second)
			if err := h.c.SubmitTurn(h.ctx, runtime.Turn{Text: tc.said, Duration: 500 * time.Millisecond}); err != nil {
				t.Fatal(err)
			}
			said := h.spoken()[s0:]
			if tc.resumed == "" {
				if len(ex.reqs) == calls {
					t.Fatalf("a real interruption was not a turn: said %q", said)
				}
				return
			}
			if len(ex.reqs) != calls || !slices.Equal(said, []string{tc.resumed}) {
				t.Fatalf("calls %d→%d, said %q, want only %q", calls, len(ex.reqs), said, tc.resumed)
			}
			var reasons []runtime.NotAssessedReason
			for _, r := range payloads[*runtime.RecoveryPayload](h) {
				if r.Kind == runtime.RecoveryNotAssessed {
					reasons = append(reasons, r.Reason)
				}
			}
			if want := map[bool]int{true: 0, false: 1}[tc.said == ""]; len(reasons) != want || want == 1 && reasons[0] != runtime.NotAssessedBackchannel {
				t.Fatalf("not_assessed %v", reasons)
			}
			if err := runtimetest.CheckAssessedOnce(h.rec.Events()); err != nil {
				t.Fatal(err)
			}
			// A controller resumed from the log is in the same state, the cut and the line included.
			checkResumesSame(t, h.c, h.rec.Events())
		})
	}
}

// checkResumesSame resumes a controller of basic.yaml from evs and fails t where its state
// differs from live's at the last event.
func checkResumesSame(t *testing.T, live *runtime.Controller, evs []runtime.Event) {
	t.Helper()
	at := evs[len(evs)-1].Timestamp
	want, err := runtime.ParityState(live, at)
	if err != nil {
		t.Fatal(err)
	}
	resumed, _ := resumeFrom(t, compileTestExam(t, "basic.yaml", nil), &scriptedExaminer{}, runtime.NewVirtualClock(at), evs)
	got, err := runtime.ParityState(resumed, at)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("resumed %s = %v, live %v", k, got[k], want[k])
		}
	}
}
