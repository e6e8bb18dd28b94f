package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/runtime"
)

// TestKeysAfterTheExamEnded: once the exam is over the console keeps calls away from the
// controller, keeps what was typed, and says how to leave.
func TestKeysAfterTheExamEnded(t *testing.T) {
	for _, end := range []runtime.ExamState{runtime.StateCompleted, runtime.StateAborted, runtime.StateExpired} {
		over := runtime.Event{Event: runtime.EventExamState, SessionID: "s-hotel-0001", Seq: 1000,
			Payload: []byte(`{"state":"` + end.String() + `","previous":"in_progress"}`)}
		cases := []struct {
			name   string
			msgs   []tea.Msg
			notice string
			quit   bool
			check  func(t *testing.T, m *Model)
		}{
			{name: "an answer is kept, not sent", msgs: keys("type:one more thing", "enter"), notice: "answer not sent",
				check: func(t *testing.T, m *Model) {
					if m.input.Value() != "one more thing" {
						t.Errorf("input %q", m.input.Value())
					}
				}},
			{name: "pause", msgs: keys("ctrl+p"), notice: "pause not sent"},
			{name: "skip", msgs: keys("ctrl+s"), notice: "skip not sent"},
			{name: "advance", msgs: keys("ctrl+n"), notice: "advance not sent"},
			{name: "end asks nothing", msgs: keys("ctrl+x"), notice: "end not sent",
				check: func(t *testing.T, m *Model) {
					if m.confirm != confirmNone {
						t.Error("a confirmation opened")
					}
				}},
			{name: "no instruction box", msgs: keys("ctrl+o"), notice: "instruction not sent",
				check: func(t *testing.T, m *Model) {
					if m.adminOpen {
						t.Error("the instruction box opened")
					}
				}},
			{name: "ctrl+c quits at once", msgs: keys("ctrl+c"), quit: true},
		}
		for _, tc := range cases {
			t.Run(end.String()+"/"+tc.name, func(t *testing.T) {
				b := &fakeBackend{}
				m := fixtureModel(t, b, 120, 40)
				m.Apply(over)
				if quit := drive(t, m, tc.msgs...); quit != tc.quit {
					t.Fatalf("quit %v, want %v", quit, tc.quit)
				}
				if calls := b.Calls(); len(calls) != 0 {
					t.Errorf("backend called after the end: %q", calls)
				}
				if !strings.Contains(m.notice, tc.notice) || (tc.notice != "" && !m.noticeErr) {
					t.Errorf("notice %q (error %v), want %q", m.notice, m.noticeErr, tc.notice)
				}
				if !strings.Contains(m.notice, "ctrl+c quits") && tc.notice != "" {
					t.Errorf("notice %q does not say how to leave", m.notice)
				}
				if want := "the exam is " + end.String(); !strings.Contains(Plain(m.Render()), want) {
					t.Errorf("screen does not say %q", want)
				}
				if tc.check != nil {
					tc.check(t, m)
				}
			})
		}
	}
}
