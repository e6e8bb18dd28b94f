package controlroom

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/tui"
)

// TestWaitingRoomBecomesExam: the room watcher's list of rooms dispatched and not started
// shows as its own section, with the age and, past the threshold, the WAITING alert, never
// among the exams; when the exam bot joins (the next scan lists nothing and the room's session
// comes) the line is gone and the room is an exam.
func TestWaitingRoomBecomesExam(t *testing.T) {
	now := fixtureNow
	board, err := monitor.NewBoard(monitor.Thresholds{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(board, WithNoColor(true), WithClock(func() time.Time { return now }), WithTickInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	m.Update(WaitingMsg{{Room: "exam-room-7", Candidate: "cand-7", DispatchID: "AD_7", Since: now.Add(-20 * time.Second)}})
	screen := func() string { return tui.Plain(m.Render()) }
	line := func(s, word string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, word) {
				return l
			}
		}
		return ""
	}
	s := screen()
	if l := line(s, "exam-room-7"); !strings.Contains(s, "DISPATCHED, NOT STARTED (1)") || !strings.Contains(l, "cand-7") ||
		!strings.Contains(l, "0:20") || !strings.Contains(l, "not started") || strings.Contains(l, "WAITING") {
		t.Fatalf("the room waiting 20 s:\n%s", s)
	}
	if !strings.Contains(s, "live 0") || !strings.Contains(s, "no exam is running") || m.Selected() != "" {
		t.Errorf("a dispatch not started counted as an exam (selected %q):\n%s", m.Selected(), s)
	}

	now = now.Add(15 * time.Second) // 35 s: past the default 30 s
	m.Update(tickMsg(now))
	s = screen()
	if l := line(s, "exam-room-7"); !strings.Contains(l, "0:35") || !strings.Contains(l, "WAITING") || !strings.Contains(s, "1 alert") {
		t.Fatalf("the room waiting 35 s:\n%s", s)
	}

	// The bot joins: the next scan lists no room waiting, and the room's session comes.
	ev, err := runtime.NewEvent("sess-7", 1, now, &runtime.ExamStatePayload{State: runtime.StateInProgress})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(WaitingMsg{})
	m.Update(RoomsMsg{"sess-7": {Room: "exam-room-7", Candidate: "cand-7"}})
	m.Update(UpdateMsg(monitor.Update{Events: []runtime.Event{ev}}))
	s = screen()
	if strings.Contains(s, "DISPATCHED") || strings.Contains(s, "not started") || strings.Contains(s, "WAITING") ||
		!strings.Contains(s, "live 1") || !strings.Contains(line(s, "cand-7"), "running") || m.Selected() != "sess-7" {
		t.Errorf("after the bot joined (selected %q):\n%s", m.Selected(), s)
	}
}
