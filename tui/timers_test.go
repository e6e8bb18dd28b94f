package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestTimersFollowDeadlines reads the node and exam clocks at chosen instants: they come from
// the deadlines and timestamps in the events, stop while paused and after the end, and follow
// a deadline the runtime restates.
func TestTimersFollowDeadlines(t *testing.T) {
	t0 := fixtureStart
	now := t0
	m := newTestModel(t, hotelInfo, &fakeBackend{}, WithClock(func() time.Time { return now }))
	r := newRecorder(t, "s-timers", t0)
	feed := func(d time.Duration, p runtime.Payload) {
		r.at(d, p)
		m.Apply(r.events[len(r.events)-1])
	}
	clocks := func() (node, exam string) {
		ls := timersOf(m).lines(80, m.now())
		return Plain(ls[1]), Plain(ls[2])
	}
	feed(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady, TotalTimeBudgetSec: 600})
	feed(0, &runtime.NodeEnteredPayload{NodeID: "a", Kind: "assessment", TimeBudgetSec: 240,
		Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 2}, DeadlineAt: rfc(t0.Add(240 * time.Second))})

	steps := []struct {
		name     string
		at       time.Duration // clock, from t0
		event    runtime.Payload
		eventAt  time.Duration // event time, from the previous event
		node     string
		exam     string
		contains string
	}{
		{name: "running", at: 30 * time.Second, node: "00:30 / 04:00", exam: "00:30 / 10:00"},
		{name: "over budget", at: 250 * time.Second, node: "04:10 / 04:00", exam: "04:10 / 10:00"},
		{name: "paused at 40 s", event: &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress},
			eventAt: 40 * time.Second, at: 100 * time.Second, node: "00:40 / 04:00", exam: "00:40 / 10:00"},
		{name: "resumed at 100 s without a restated deadline", event: &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StatePaused},
			eventAt: 60 * time.Second, at: 110 * time.Second, node: "00:50 / 04:00", exam: "00:50 / 10:00"},
		{name: "a warning", event: &runtime.TimeWarningPayload{Scope: "node", NodeID: "a", RemainingSec: 60},
			eventAt: 10 * time.Second, at: 110 * time.Second, node: "00:50 / 04:00", contains: "⚠ node time: 60 s left"},
		{name: "paused and resumed with the runtime's deadline", event: &runtime.ExamStatePayload{State: runtime.StateInProgress,
			Previous: runtime.StatePaused, DeadlineAt: rfc(t0.Add(400 * time.Second)), ExamDeadlineAt: rfc(t0.Add(700 * time.Second))},
			at: 200 * time.Second, node: "00:40 / 04:00", exam: "01:40 / 10:00"},
		{name: "completed freezes", event: &runtime.ExamStatePayload{State: runtime.StateCompleted, Previous: runtime.StateInProgress},
			eventAt: 100 * time.Second, at: 900 * time.Second, node: "00:50 / 04:00", exam: "01:50 / 10:00"},
	}
	for _, s := range steps {
		if s.event != nil {
			feed(s.eventAt, s.event)
		}
		now = t0.Add(s.at)
		node, exam := clocks()
		if !strings.Contains(node, s.node) {
			t.Errorf("%s: node clock %q, want %q", s.name, node, s.node)
		}
		if s.exam != "" && !strings.Contains(exam, s.exam) {
			t.Errorf("%s: exam clock %q, want %q", s.name, exam, s.exam)
		}
		if s.contains != "" && !strings.Contains(Plain(strings.Join(timersOf(m).lines(80, m.now()), "\n")), s.contains) {
			t.Errorf("%s: no %q", s.name, s.contains)
		}
	}
}

func TestTimersCounts(t *testing.T) {
	m := fixtureModel(t, &fakeBackend{}, 120, 40)
	ls := Plain(strings.Join(timersOf(m).lines(60, m.now()), "\n"))
	if b := timersOf(m).badge(); b != "node 3 of 4" {
		t.Errorf("timers badge %q, want node 3 of 4", b)
	}
	for _, want := range []string{"State in_progress · scenario-staff-rota", "Follow-ups 1/2", "Off-topic 1/2", "Clarify 0/2",
		"✓ welcome", "▶ scenario-staff-rota", "  wrapup"} {
		if !strings.Contains(ls, want) {
			t.Errorf("timers lack %q:\n%s", want, ls)
		}
	}
}

// TestTimersAfterRestart: an exam whose process stopped and was resumed minutes later. The
// runtime does not count the downtime; a console following the events (watch, the control
// room) shows the same node and exam clocks as the resumed controller.
func TestTimersAfterRestart(t *testing.T) {
	events, snap, now := runtimetest.Restarted(t, fixtureStart, 7*time.Minute, 15*time.Second)
	m := newTestModel(t, hotelInfo, &fakeBackend{}, WithClock(func() time.Time { return now }))
	for _, ev := range events {
		m.Apply(ev)
	}
	p := timersOf(m)
	if got := p.nodeElapsed(now); got != snap.NodeElapsed {
		t.Errorf("node clock %s, the runtime's %s", got, snap.NodeElapsed)
	}
	if got := p.examElapsed(now); got != snap.ExamElapsed {
		t.Errorf("exam clock %s, the runtime's %s", got, snap.ExamElapsed)
	}
}
