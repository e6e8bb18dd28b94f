package runtime_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

func TestPauseStopsTimers(t *testing.T) {
	h, _ := intoPlan(t, nil)
	h.wait(10 * time.Second)
	if err := h.c.Control(h.ctx, runtime.ControlPause, "proctor"); err != nil {
		t.Fatal(err)
	}
	before := h.c.Snapshot()
	if !before.NodeDeadline.IsZero() {
		t.Fatalf("deadline while paused: %v", before.NodeDeadline)
	}
	h.wait(500 * time.Second) // far past the node (120 s) and exam (600 s) budgets
	s := h.c.Snapshot()
	if s.State != runtime.StatePaused || s.NodeID != "plan" || s.NodeElapsed != before.NodeElapsed || s.ExamElapsed != before.ExamElapsed {
		t.Fatalf("timers ran while paused: before %+v after %+v", before, s)
	}
	if err := h.c.Control(h.ctx, runtime.ControlResume, "proctor"); err != nil {
		t.Fatal(err)
	}
	states := payloads[*runtime.ExamStatePayload](h)
	last := states[len(states)-1]
	wantDeadline := h.clock.Now().Add(120*time.Second - before.NodeElapsed).UTC().Format(time.RFC3339Nano)
	if last.State != runtime.StateInProgress || last.DeadlineAt != wantDeadline {
		t.Fatalf("resume event %+v, want deadline %s", last, wantDeadline)
	}
	// The node still has 120 s minus what it used before the pause.
	left := 120*time.Second - before.NodeElapsed
	h.wait(left - time.Second)
	if s := h.c.Snapshot(); s.NodeID != "plan" {
		t.Fatalf("left the node early: %+v", s)
	}
	h.wait(2 * time.Second)
	if s := h.c.Snapshot(); s.NodeID != "after-time" {
		t.Fatalf("node %s after the budget", s.NodeID)
	}
}

func TestCandidateResumesAfterPause(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.push(runtimetest.Args{CommandDetected: "pause", SpokenText: "OK."}.String())
	h.say("Can we pause for a moment?")
	if s := h.c.Snapshot(); s.State != runtime.StatePaused {
		t.Fatalf("state %s", s.State)
	}
	h.wait(30 * time.Second)
	h.say("I'm back.")
	s := h.c.Snapshot()
	if s.State != runtime.StateInProgress {
		t.Fatalf("state %s", s.State)
	}
	if sp := h.spoken(); !strings.HasPrefix(sp[len(sp)-1], "Welcome back.") {
		t.Fatalf("said %q", sp[len(sp)-1])
	}
	if n := len(ex.reqs); n != 2 {
		t.Fatalf("the resume turn went to the examiner (%d calls)", n)
	}
}

func TestExamExpires(t *testing.T) {
	h, _ := intoPlan(t, func(s string) string { return strings.Replace(s, "timeBudgetSec: 120", "timeBudgetSec: 900", 1) })
	h.wait(600 * time.Second)
	s := h.c.Snapshot()
	if s.State != runtime.StateExpired {
		t.Fatalf("state %s after the total budget", s.State)
	}
	warn := payloads[*runtime.TimeWarningPayload](h)
	if len(warn) != 1 || warn[0].Scope != runtime.WarningExam || warn[0].RemainingSec != 30 {
		t.Fatalf("warnings %+v", warn)
	}
	done := payloads[*runtime.ExamCompletedPayload](h)
	if len(done) != 1 || done[0].State != runtime.StateExpired {
		t.Fatalf("completed %+v", done)
	}
	evs := h.rec.Events()
	if evs[len(evs)-1].Event != runtime.EventExamCompleted {
		t.Fatalf("last event %s", evs[len(evs)-1].Event)
	}
	h.checkSeq()
}

func TestNodeTimeWarning(t *testing.T) {
	h, _ := intoPlan(t, nil)
	h.wait(89 * time.Second)
	if n := len(payloads[*runtime.TimeWarningPayload](h)); n != 0 {
		t.Fatalf("%d warnings before the threshold", n)
	}
	h.wait(5 * time.Second)
	warn := payloads[*runtime.TimeWarningPayload](h)
	if len(warn) != 1 || warn[0].Scope != runtime.WarningNode || warn[0].NodeID != "plan" || warn[0].RemainingSec != 30 {
		t.Fatalf("warnings %+v", warn)
	}
}

func TestBeatGates(t *testing.T) {
	h, ex := intoPlan(t, nil)
	// The plan-scoped beat is due 40 s after entering the node; the candidate is speaking then.
	h.c.UserActivity(true)
	h.wait(45 * time.Second)
	if n := len(payloads[*runtime.BeatFiredPayload](h)); n != 0 {
		t.Fatal("a beat talked over the candidate")
	}
	h.c.UserActivity(false)
	h.wait(time.Second) // idle for 1 s < userIdle 1.5 s
	if n := len(payloads[*runtime.BeatFiredPayload](h)); n != 0 {
		t.Fatal("a beat fired before the user-idle gate")
	}
	h.wait(time.Second)
	beats := payloads[*runtime.BeatFiredPayload](h)
	if len(beats) != 1 || beats[0].Scope != "plan" || beats[0].AtSec != 40 {
		t.Fatalf("beats %+v", beats)
	}
	// A beat is a direction to the examiner: never spoken, in the next call's context.
	for _, p := range payloads[*runtime.SpokenPayload](h) {
		if p.Source == "beat" || strings.Contains(p.Text, "risks as well as benefits") {
			t.Fatalf("a beat was spoken: %+v", p)
		}
	}
	h.wait(10 * time.Second)
	if n := len(payloads[*runtime.BeatFiredPayload](h)); n != 1 {
		t.Fatalf("beat fired %d times", n)
	}
	ex.push(runtimetest.Args{AnswerQuality: "partial", SpokenText: "What are the risks?"}.String())
	h.say("The move saves money.")
	req := ex.lastRequest()
	if len(req.Directions) != 1 || !strings.Contains(req.Directions[0], "risks as well as benefits") {
		t.Fatalf("directions %q", req.Directions)
	}
	found := false
	for _, m := range req.Messages {
		if m.Role == "developer" && strings.Contains(m.Content, "never read it aloud") && strings.Contains(m.Content, "risks as well as benefits") {
			found = true
		}
	}
	if !found {
		t.Fatalf("the beat is not in the examiner's context: %+v", req.Messages)
	}
}

func TestBeatPostSpeakBuffer(t *testing.T) {
	h, ex := intoPlan(t, nil)
	h.wait(38 * time.Second)
	// A long examiner reply just before the beat is due: the beat waits for the speech and the
	// post-speak buffer.
	ex.push(runtimetest.Args{SpokenText: strings.Repeat("Consider the servers and the weekend plan carefully. ", 3) + "What would you do first?"}.String())
	h.say("I am thinking about the servers.")
	h.wait(3 * time.Second)
	if n := len(payloads[*runtime.BeatFiredPayload](h)); n != 0 {
		t.Fatal("beat fired while the examiner was still speaking")
	}
	h.wait(12 * time.Second)
	if n := len(payloads[*runtime.BeatFiredPayload](h)); n != 1 {
		t.Fatalf("beat fired %d times after the speech ended", n)
	}
}

func TestExaminerPauseHoldsCandidate(t *testing.T) {
	h, _ := intoPlan(t, nil)
	if err := h.c.Control(h.ctx, runtime.ControlPause, "proctor"); err != nil {
		t.Fatal(err)
	}
	n := len(h.rec.Events())
	if err := h.c.SubmitTurn(h.ctx, runtime.Turn{Text: "Hello?"}); !errors.Is(err, runtime.ErrPaused) {
		t.Fatalf("turn while the examiner paused: %v", err)
	}
	if s := h.c.Snapshot(); s.State != runtime.StatePaused {
		t.Fatalf("a candidate turn changed an examiner's pause: %+v", s)
	}
	// Refused, not lost: the words are in the transcript, with the reason they were not observed.
	var got []string
	for _, ev := range h.rec.Events()[n:] {
		got = append(got, string(ev.Event))
	}
	if want := []string{"transcript_segment", "recovery_event"}; !slices.Equal(got, want) {
		t.Fatalf("events after the refused turn %v, want %v", got, want)
	}
	if r := payloads[*runtime.RecoveryPayload](h); len(r) != 1 || r[0].Reason != runtime.NotAssessedExamPaused || r[0].SegmentID == "" {
		t.Fatalf("recovery %+v, want one not_assessed exam_paused naming the segment", r)
	}
}
