package runtime_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestOverheard: words that took no turn (a backchannel the voice path held over the
// examiner's line) are recorded, an overheard candidate segment with its not_assessed, and
// change nothing else: no examiner call and no line; a barge-in's cut still stands, so a
// backchannel turn after it still resumes the line; a resumed controller is in the same state.
// Bad calls fail and record nothing.
func TestOverheard(t *testing.T) {
	const reply = "Thank you. Nothing was tested before the move. What would you test first?"
	h, ex := intoPlan(t, nil)
	ex.push(runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, FollowUpType: "probe", SpokenText: reply}.String())
	h.say("The plan is risky.")
	if err := h.c.SpeechInterrupted("Thank you. Nothing was"); err != nil {
		t.Fatal(err)
	}
	calls, s0, n0 := len(ex.reqs), len(h.spoken()), len(h.rec.Events())
	mic := runtime.Turn{Text: "Mm-hmm.", Duration: 400 * time.Millisecond, Source: runtime.SourceMic, Confidence: 0.9}
	for _, bad := range []struct {
		name   string
		turn   runtime.Turn
		reason runtime.NotAssessedReason
	}{
		{"no reason", mic, runtime.NotAssessedUnknown},
		{"an unknown reason", mic, "because"},
		{"a bad turn", runtime.Turn{Text: "Mm-hmm.", Confidence: 2}, runtime.NotAssessedBackchannel},
	} {
		if err := h.c.Overheard(h.ctx, bad.turn, bad.reason, ""); !errors.Is(err, runtime.ErrInvalidTurn) {
			t.Errorf("%s: %v, want ErrInvalidTurn", bad.name, err)
		}
	}
	if err := h.c.Overheard(h.ctx, runtime.Turn{Text: "  ", Source: runtime.SourceMic}, runtime.NotAssessedBackchannel, ""); err != nil {
		t.Fatal(err)
	}
	if n := len(h.rec.Events()); n != n0 {
		t.Fatalf("bad or wordless calls recorded %d events", n-n0)
	}
	if err := h.c.Overheard(h.ctx, mic, runtime.NotAssessedBackchannel, "held over the examiner's line"); err != nil {
		t.Fatal(err)
	}
	evs := h.rec.Events()[n0:]
	if len(evs) != 2 || len(ex.reqs) != calls || len(h.spoken()) != s0 {
		t.Fatalf("overheard made %d events, %d calls, said %q; want the segment and its not_assessed only", len(evs), len(ex.reqs)-calls, h.spoken()[s0:])
	}
	seg := runtimetest.Payloads[*runtime.TranscriptSegmentPayload](t, evs[:1])
	na := runtimetest.Payloads[*runtime.RecoveryPayload](t, evs[1:])
	if len(seg) != 1 || !seg[0].Overheard || seg[0].Text != "Mm-hmm." || seg[0].Speaker != runtime.SpeakerCandidate ||
		len(na) != 1 || na[0].Kind != runtime.RecoveryNotAssessed || na[0].Reason != runtime.NotAssessedBackchannel || na[0].SegmentID != seg[0].SegmentID {
		t.Fatalf("recorded %s %s, %s %s", evs[0].Event, evs[0].Payload, evs[1].Event, evs[1].Payload)
	}
	// A controller resumed from the log is in the same state, the cut included.
	checkResumesSame(t, h.c, h.rec.Events())
	// The cut stands: a backchannel turn now is a false cut, and the line resumes.
	h.clock.Advance(time.Second)
	if err := h.c.SubmitTurn(h.ctx, runtime.Turn{Text: "Yeah.", Duration: 400 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if said := h.spoken()[s0:]; len(ex.reqs) != calls || !slices.Equal(said, []string{"Nothing was tested before the move. What would you test first?"}) {
		t.Fatalf("after the overheard words the false cut said %q with %d calls", said, len(ex.reqs)-calls)
	}
	if err := runtimetest.CheckAssessedOnce(h.rec.Events()); err != nil {
		t.Fatal(err)
	}
}

// TestResumeRecordsLostCall: a log that ends during the examiner's call on the candidate's
// words (their segment stored, no observation) resumes with those words recorded not_assessed
// (restarted), before the question is asked again.
func TestResumeRecordsLostCall(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.push(runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, FollowUpType: "probe", SpokenText: "What would you test first?"}.String())
	h.say("The plan is risky.")
	all := h.rec.Events()
	cut := slices.IndexFunc(all, func(ev runtime.Event) bool {
		p, _ := ev.Decode()
		s, ok := p.(*runtime.TranscriptSegmentPayload)
		return ok && s.Speaker == runtime.SpeakerCandidate && s.Text == "The plan is risky."
	})
	if cut < 0 {
		t.Fatal("no candidate segment")
	}
	log := all[:cut+1]
	at := log[len(log)-1].Timestamp
	c, rec := resumeFrom(t, compileTestExam(t, "basic.yaml", nil), &scriptedExaminer{}, runtime.NewVirtualClock(at), log)
	if err := c.Start(h.ctx); err != nil {
		t.Fatal(err)
	}
	out := rec.Events()
	if len(out) == 0 {
		t.Fatal("the resume said nothing")
	}
	r := runtimetest.Payloads[*runtime.RecoveryPayload](t, out[:1])
	if len(r) != 1 || r[0].Kind != runtime.RecoveryNotAssessed || r[0].Reason != runtime.NotAssessedRestarted {
		t.Fatalf("the resume opened with %s %s, want not_assessed restarted", out[0].Event, out[0].Payload)
	}
	if sp := runtimetest.Payloads[*runtime.SpokenPayload](t, out); len(sp) == 0 || sp[0].Source != runtime.SpokenResume {
		t.Errorf("the question was not asked again: %+v", sp)
	}
	if err := runtimetest.CheckAssessedOnce(append(slices.Clone(log), out...)); err != nil {
		t.Error(err)
	}
}
