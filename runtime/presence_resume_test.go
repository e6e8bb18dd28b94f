package runtime_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

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
