package runtime_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

func TestResumeFromEventLog(t *testing.T) {
	h, ex := intoPlan(t, nil)
	if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminQueued, Text: "Ask about backups.", Sender: "dr-lee"}); err != nil {
		t.Fatal(err)
	}
	ex.push(runtimetest.Args{Signals: []runtime.Signal{sig("names_risk", "nothing tested")}, AnswerQuality: "substantive", NeedsFollowUp: true, SpokenText: "What would you change?"}.String(),
		runtimetest.Args{AnswerQuality: "off_topic", SpokenText: "What do you think of this plan?"}.String(),
		runtimetest.Args{CommandDetected: "clarification", SpokenText: "In other words: is the plan safe?"}.String())
	h.say("Nothing tested is the risk.")
	h.say("I like trains.")
	h.say("What do you mean?")
	if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminQueued, Text: "Wrap up soon.", Sender: "dr-lee"}); err != nil {
		t.Fatal(err)
	}
	h.wait(15 * time.Second)
	want := h.c.Snapshot()
	events := h.rec.Events()

	// A new process resumes from the stored log an hour later.
	clock := runtime.NewVirtualClock(h.clock.Now().Add(time.Hour))
	ex2 := &scriptedExaminer{}
	c, rec := resumeFrom(t, h.c.Exam(), ex2, clock, events)
	got := c.Snapshot()
	if got.SessionID != "test" || got.State != want.State || got.NodeID != want.NodeID || got.FollowUps != want.FollowUps ||
		got.OffTopic != want.OffTopic || got.Clarifications != want.Clarifications || got.Turn != want.Turn || got.Seq != want.Seq ||
		// Timers stand where the last stored event left them: the 15 s of quiet ticking after it
		// left no trace in the log, and the hour offline does not count.
		got.NodeElapsed != want.NodeElapsed-15*time.Second || got.ExamElapsed != want.ExamElapsed-15*time.Second || got.QueuedAdmin != 1 ||
		!reflect.DeepEqual(got.Visited, want.Visited) || !reflect.DeepEqual(got.Ledger, want.Ledger) || got.LastQuestion != want.LastQuestion {
		t.Fatalf("resumed snapshot differs:\n got %+v\nwant %+v", got, want)
	}
	if err := c.Start(h.ctx); err != nil {
		t.Fatal(err)
	}
	ex2.push(runtimetest.Args{SpokenText: "Go on."}.String())
	if err := c.SubmitTurn(h.ctx, runtime.Turn{Text: "I would test on a copy first."}); err != nil {
		t.Fatal(err)
	}
	req := ex2.reqs[0]
	if len(req.AdminInstructions) != 1 || req.AdminInstructions[0] != "Wrap up soon." || len(req.CoveredSignals) != 1 {
		t.Fatalf("resumed request %+v", req)
	}
	hasHistory := false
	for _, m := range req.Messages {
		hasHistory = hasHistory || m.Content == "I like trains."
	}
	if !hasHistory {
		t.Fatalf("resumed context lost the node history: %+v", req.Messages)
	}
	evs := rec.Events()
	if len(evs) == 0 || evs[0].Seq != want.Seq+1 {
		t.Fatalf("seq did not continue: first %+v after %d", evs[0], want.Seq)
	}
	for i, ev := range evs {
		if ev.Seq != want.Seq+1+int64(i) || ev.SessionID != "test" {
			t.Fatalf("event %d seq %d session %s", i, ev.Seq, ev.SessionID)
		}
	}
}

func TestResumeRejectsBadLogs(t *testing.T) {
	h, _ := intoPlan(t, nil)
	events := h.rec.Events()
	gap := append(append([]runtime.Event{}, events[:3]...), events[4:]...)
	other := append([]runtime.Event{}, events...)
	other[2].SessionID = "other"
	for name, log := range map[string][]runtime.Event{"gap": gap, "mixed sessions": other} {
		if _, err := runtime.NewController(h.c.Exam(), newOffline(t), runtime.WithResume(log)); !errors.Is(err, runtime.ErrResume) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
