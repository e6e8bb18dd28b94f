package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/runtime"
)

// TestTranscriptFollows: the transcript follows new lines unless the reader scrolled back;
// meanwhile the last row counts what arrived; end, ctrl+end or scrolling to the bottom (keys
// or wheel) follow again.
func TestTranscriptFollows(t *testing.T) {
	wheelDown := tea.MouseWheelMsg(tea.Mouse{X: 5, Y: 10, Button: tea.MouseWheelDown})
	cases := []struct {
		name   string
		back   []tea.Msg // what returns to following
		follow bool
	}{
		{"end in the answer line", []tea.Msg{press("end")}, true},
		{"ctrl+end in the answer line", []tea.Msg{press("ctrl+end")}, true},
		{"down to the bottom", []tea.Msg{press("pgdown"), press("pgdown"), press("pgdown"), press("pgdown")}, true},
		{"wheel to the bottom", []tea.Msg{wheelDown, wheelDown, wheelDown, wheelDown, wheelDown, wheelDown, wheelDown, wheelDown, wheelDown, wheelDown}, true},
		{"still scrolled", []tea.Msg{press("down")}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := fixtureModel(t, &fakeBackend{}, 80, 24)
			r := newRecorder(t, "s-hotel-0001", fixtureStart.Add(time.Hour))
			r.seq = 1000
			say := func(text string) {
				r.at(time.Second, &runtime.SpokenPayload{NodeID: "n", Source: "examiner", Text: text})
				m.Update(EventsMsg{r.events[len(r.events)-1]})
			}
			drive(t, m, press("pgup"), press("pgup"))
			say("First line while scrolled back.")
			say("Second line while scrolled back.")
			screen := Plain(m.Render())
			if !strings.Contains(screen, "2 new lines ↓") {
				t.Fatalf("no marker for the lines below:\n%s", screen)
			}
			if strings.Contains(screen, "Second line while scrolled back.") {
				t.Fatalf("scrolled view jumped to the newest line:\n%s", screen)
			}
			drive(t, m, tc.back...)
			say("Newest line.")
			screen = Plain(m.Render())
			if got := strings.Contains(screen, "Newest line."); got != tc.follow {
				t.Errorf("newest line on screen = %v, want %v:\n%s", got, tc.follow, screen)
			}
			if tc.follow && strings.Contains(screen, "new line") {
				t.Errorf("marker left while following:\n%s", screen)
			}
			if !tc.follow && !strings.Contains(screen, "new lines ↓") {
				t.Errorf("marker gone while still scrolled:\n%s", screen)
			}
		})
	}
}

// TestQuestionMarkOpensHelp: in an empty answer line ? opens the help, as the footer says; in
// a line with text it is typed.
func TestQuestionMarkOpensHelp(t *testing.T) {
	m := fixtureModel(t, &fakeBackend{}, 80, 24)
	drive(t, m, press("?"))
	if !m.showHelp {
		t.Fatal("? in an empty answer line did not open the help")
	}
	if m.input.Value() != "" {
		t.Errorf("? was typed too: %q", m.input.Value())
	}
	drive(t, m, press("?"))
	if m.showHelp {
		t.Fatal("? did not close the help")
	}
	drive(t, m, keys("type:Why", "?")...)
	if m.showHelp || m.input.Value() != "Why?" {
		t.Errorf("? after text: help %v, line %q; want the question mark typed", m.showHelp, m.input.Value())
	}
}
