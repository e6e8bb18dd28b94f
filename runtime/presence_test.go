package runtime_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// presenceLog is the candidate_presence events and the pause/resume summaries, in stream order.
func presenceLog(h *harness) []string {
	h.t.Helper()
	return presenceLines(h.t, h.rec.Events())
}

// presenceLines is what a presence test compares in an event stream: candidate_presence
// summaries, pause/resume summaries and node entries.
func presenceLines(t testing.TB, evs []runtime.Event) []string {
	t.Helper()
	var out []string
	for _, ev := range evs {
		p, err := ev.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch v := p.(type) {
		case *runtime.CandidatePresencePayload:
			out = append(out, v.Summary())
		case *runtime.ExamStatePayload:
			if s := v.PauseSummary(); s != "" {
				out = append(out, s)
			}
		case *runtime.NodeEnteredPayload:
			out = append(out, "node "+v.NodeID)
		}
	}
	return out
}

func TestCandidatePresenceJoinLeaveRejoin(t *testing.T) {
	h := newHarness(t, compileTestExam(t, "basic.yaml", nil), &scriptedExaminer{})
	arrive := runtime.Presence{Identity: "cand-1", Present: true}
	// The candidate is in the room before the exam starts: recorded when it starts.
	if err := h.c.CandidatePresence(h.ctx, arrive); err != nil {
		t.Fatal(err)
	}
	if n := len(h.rec.Events()); n != 0 {
		t.Fatalf("%d events before Start", n)
	}
	h.start()
	h.wait(10 * time.Second)
	if err := h.c.CandidatePresence(h.ctx, runtime.Presence{Identity: "cand-1", Reason: "connection lost"}); err != nil {
		t.Fatal(err)
	}
	before := h.c.Snapshot()
	if before.State != runtime.StatePaused {
		t.Fatalf("state %s after the candidate left", before.State)
	}
	h.wait(30 * time.Second)
	if after := h.c.Snapshot(); after.NodeElapsed != before.NodeElapsed || after.ExamElapsed != before.ExamElapsed {
		t.Fatalf("timers ran while the candidate was away: node %v → %v, exam %v → %v",
			before.NodeElapsed, after.NodeElapsed, before.ExamElapsed, after.ExamElapsed)
	}
	// Repeated and unknown reports change nothing.
	for _, p := range []runtime.Presence{{Identity: "cand-1", Reason: "again"}, {Identity: "someone-else", Reason: "left the room"}} {
		if err := h.c.CandidatePresence(h.ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.c.CandidatePresence(h.ctx, arrive); err != nil {
		t.Fatal(err)
	}
	if err := h.c.CandidatePresence(h.ctx, arrive); err != nil {
		t.Fatal(err)
	}
	if s := h.c.Snapshot(); s.State != runtime.StateInProgress {
		t.Fatalf("state %s after the candidate rejoined", s.State)
	}
	want := []string{
		"candidate cand-1 joined", "node intro",
		"candidate cand-1 left (connection lost)", "paused: candidate left",
		"candidate cand-1 rejoined after 30s", "resumed: candidate rejoined",
	}
	if got := presenceLog(h); !reflect.DeepEqual(got, want) {
		t.Fatalf("presence log\n got %q\nwant %q", got, want)
	}
	sp := h.spoken()
	if last := sp[len(sp)-1]; last != "Welcome back. Please tell me your name." {
		t.Fatalf("last line said %q", last)
	}
	h.checkSeq()
}

func TestPauseNamesWhoPaused(t *testing.T) {
	tests := []struct {
		name string
		run  func(h *harness, ex *scriptedExaminer)
		want []string
		by   []runtime.Actor
	}{
		{
			name: "examiner",
			run: func(h *harness, _ *scriptedExaminer) {
				for _, a := range []runtime.ControlAction{runtime.ControlPause, runtime.ControlResume} {
					if err := h.c.Control(h.ctx, a, "examiner-ana"); err != nil {
						h.t.Fatal(err)
					}
				}
			},
			want: []string{"paused by examiner-ana", "resumed by examiner-ana"},
			by:   []runtime.Actor{{Kind: runtime.ActorExaminer, Identity: "examiner-ana"}, {Kind: runtime.ActorExaminer, Identity: "examiner-ana"}},
		},
		{
			name: "candidate",
			run: func(h *harness, ex *scriptedExaminer) {
				ex.push(runtimetest.Args{CommandDetected: "pause", SpokenText: "Of course."}.String())
				h.say("Can we pause for a moment?")
				h.say("I am back.")
			},
			want: []string{"paused by the candidate", "resumed by the candidate"},
			by:   []runtime.Actor{{Kind: runtime.ActorCandidate}, {Kind: runtime.ActorCandidate}},
		},
		{
			// An examiner's pause outlives the candidate leaving and coming back.
			name: "examiner pause kept over a rejoin",
			run: func(h *harness, _ *scriptedExaminer) {
				must := func(err error) {
					if err != nil {
						h.t.Fatal(err)
					}
				}
				must(h.c.CandidatePresence(h.ctx, runtime.Presence{Identity: "cand", Present: true}))
				must(h.c.Control(h.ctx, runtime.ControlPause, "examiner-bo"))
				must(h.c.CandidatePresence(h.ctx, runtime.Presence{Identity: "cand", Reason: "left the room"}))
				must(h.c.CandidatePresence(h.ctx, runtime.Presence{Identity: "cand", Present: true}))
				if s := h.c.Snapshot(); s.State != runtime.StatePaused {
					h.t.Fatalf("state %s: the rejoin lifted an examiner's pause", s.State)
				}
				if err := h.c.SubmitTurn(h.ctx, runtime.Turn{Text: "hello?"}); !errors.Is(err, runtime.ErrPaused) {
					h.t.Fatalf("a candidate turn during an examiner's pause: %v", err)
				}
			},
			want: []string{"candidate cand joined", "paused by examiner-bo", "candidate cand left (left the room)", "candidate cand rejoined"},
			by:   []runtime.Actor{{Kind: runtime.ActorExaminer, Identity: "examiner-bo"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, ex := intoPlan(t, nil)
			n := len(h.rec.Events())
			tc.run(h, ex)
			var got []string
			var by []runtime.Actor
			for _, ev := range h.rec.Events()[n:] {
				p, err := ev.Decode()
				if err != nil {
					t.Fatal(err)
				}
				switch v := p.(type) {
				case *runtime.CandidatePresencePayload:
					got = append(got, v.Summary())
				case *runtime.ExamStatePayload:
					if v.By == nil {
						t.Fatalf("exam_state %s without By", v.State)
					}
					got = append(got, v.PauseSummary())
					by = append(by, *v.By)
				}
			}
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(by, tc.by) {
				t.Fatalf("got %q by %+v\nwant %q by %+v", got, by, tc.want, tc.by)
			}
			h.checkSeq()
		})
	}
}

// A session paused because the candidate left, resumed by a new process (the exam bot
// restarted): the candidate's return resumes it, and the pause is still the system's.
func TestResumePausedForAbsence(t *testing.T) {
	h, _ := intoPlan(t, nil)
	if err := h.c.CandidatePresence(h.ctx, runtime.Presence{Identity: "cand", Present: true}); err != nil {
		t.Fatal(err)
	}
	if err := h.c.CandidatePresence(h.ctx, runtime.Presence{Identity: "cand", Reason: "connection lost"}); err != nil {
		t.Fatal(err)
	}
	events := h.rec.Events()
	clock := runtime.NewVirtualClock(h.clock.Now().Add(time.Minute))
	c, rec := resumeFrom(t, h.c.Exam(), &scriptedExaminer{}, clock, events)
	if err := c.CandidatePresence(h.ctx, runtime.Presence{Identity: "cand", Present: true}); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(h.ctx); err != nil {
		t.Fatal(err)
	}
	if s := c.Snapshot(); s.State != runtime.StateInProgress {
		t.Fatalf("state %s after the candidate came back to the resumed session", s.State)
	}
	want := []string{"candidate cand rejoined after 1m0s", "resumed: candidate rejoined"}
	if got := presenceLines(t, rec.Events()); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestCandidatePresenceRefused(t *testing.T) {
	h, _ := intoPlan(t, nil)
	if err := h.c.CandidatePresence(h.ctx, runtime.Presence{Identity: "  ", Present: true}); !errors.Is(err, runtime.ErrInvalidPresence) {
		t.Fatalf("empty identity: %v", err)
	}
	if err := h.c.Control(h.ctx, runtime.ControlEnd, "examiner-ana"); err != nil {
		t.Fatal(err)
	}
	n := len(h.rec.Events())
	if err := h.c.CandidatePresence(h.ctx, runtime.Presence{Identity: "cand", Present: true}); err != nil {
		t.Fatalf("presence after the end: %v", err)
	}
	if got := len(h.rec.Events()); got != n {
		t.Fatalf("%d events recorded after the exam ended", got-n)
	}
}

func TestPauseSummary(t *testing.T) {
	tests := []struct {
		p    runtime.ExamStatePayload
		want string
	}{
		// Sessions recorded before exam_state carried By.
		{runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress, Reason: "paused by examiner"}, "paused (paused by examiner)"},
		{runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StatePaused}, "resumed"},
		{runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady}, ""},
		{runtime.ExamStatePayload{State: runtime.StateCompleted, Previous: runtime.StatePaused}, ""},
		{runtime.ExamStatePayload{State: runtime.StatePaused, By: &runtime.Actor{Kind: runtime.ActorSystem}}, "paused by the system"},
		{runtime.ExamStatePayload{State: runtime.StatePaused, By: &runtime.Actor{Kind: runtime.ActorExaminer}}, "paused by examiner"},
	}
	for _, tc := range tests {
		if got := tc.p.PauseSummary(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
	old := runtime.Event{Event: runtime.EventExamState, Seq: 3, Payload: []byte(`{"state":"paused","previous":"in_progress","reason":"candidate asked to pause"}`)}
	p, err := old.Decode()
	if err != nil || p.(*runtime.ExamStatePayload).By != nil {
		t.Fatalf("an old exam_state decodes to %+v, %v", p, err)
	}
	if !strings.Contains(p.(*runtime.ExamStatePayload).PauseSummary(), "candidate asked to pause") {
		t.Fatal(p.(*runtime.ExamStatePayload).PauseSummary())
	}
}

// An answer that reaches the controller before the room reports the candidate back resumes the
// exam and is taken as an answer, not as a "welcome back".
func TestAnswerResumesAbsencePause(t *testing.T) {
	h, ex := intoPlan(t, nil)
	for _, p := range []runtime.Presence{{Identity: "cand", Present: true}, {Identity: "cand", Reason: "connection lost"}} {
		if err := h.c.CandidatePresence(h.ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	turn := h.c.Snapshot().Turn
	ex.push(runtimetest.Args{AnswerQuality: "substantive", SpokenText: "What would you change?"}.String())
	h.say("Nothing was tested, that is the risk.")
	if s := h.c.Snapshot(); s.State != runtime.StateInProgress || s.Turn != turn+1 {
		t.Fatalf("state %s turn %d after the answer", s.State, s.Turn)
	}
	if len(ex.reqs) == 0 || ex.reqs[len(ex.reqs)-1].Candidate.Text != "Nothing was tested, that is the risk." {
		t.Fatal("the answer did not reach the examiner")
	}
	if err := h.c.CandidatePresence(h.ctx, runtime.Presence{Identity: "cand", Present: true}); err != nil {
		t.Fatal(err)
	}
	want := []string{"candidate cand joined", "candidate cand left (connection lost)", "paused: candidate left", "resumed by the candidate", "candidate cand rejoined after 2s"}
	got := presenceLog(h)
	if !reflect.DeepEqual(got[len(got)-len(want):], want) {
		t.Fatalf("presence log %q", got)
	}
	if s := h.c.Snapshot(); s.State != runtime.StateInProgress {
		t.Fatalf("state %s", s.State)
	}
}

// A resumed session knows who its log last saw in the room: a candidate the room finds there
// again is the same stay (no rejoin, no event), and one the room reports missing is recorded as
// having left, which pauses the exam once nobody is left.
func TestResumeKeepsWhoIsInTheRoom(t *testing.T) {
	h, _ := intoPlan(t, nil)
	for _, p := range []runtime.Presence{
		{Identity: "cand-1", Present: true},
		{Identity: "cand-2", Present: true},
		{Identity: "cand-3", Present: true},
		{Identity: "cand-3", Reason: "left the room"},
	} {
		if err := h.c.CandidatePresence(h.ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	clock := runtime.NewVirtualClock(h.clock.Now().Add(time.Minute))
	rec := &runtime.Recorder{}
	c, err := runtime.NewController(h.c.Exam(), &scriptedExaminer{}, runtime.WithClock(clock),
		runtime.WithSink(runtime.NewFanout(rec)), runtime.WithResume(h.rec.Events()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, want := c.PresentCandidates(), []string{"cand-1", "cand-2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("present after the resume: %q, want %q", got, want)
	}
	report := func(p runtime.Presence) {
		t.Helper()
		if err := c.CandidatePresence(h.ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	report(runtime.Presence{Identity: "cand-1", Present: true}) // before Start: held until it
	if err := c.Start(h.ctx); err != nil {
		t.Fatal(err)
	}
	report(runtime.Presence{Identity: "cand-2", Reason: "not in the room when the exam resumed"})
	if s := c.Snapshot(); s.State != runtime.StateInProgress {
		t.Fatalf("state %s with cand-1 still in the room", s.State)
	}
	report(runtime.Presence{Identity: "cand-1", Reason: "left the room"})
	want := []string{
		"candidate cand-2 left (not in the room when the exam resumed)",
		"candidate cand-1 left (left the room)", "paused: candidate left",
	}
	if got := presenceLines(t, rec.Events()); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := c.PresentCandidates(); len(got) != 0 {
		t.Fatalf("present at the end: %q", got)
	}
}
