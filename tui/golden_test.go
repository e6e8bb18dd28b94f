package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/runtime"
)

var goldenSizes = []struct{ w, h int }{{80, 24}, {120, 40}, {200, 60}}

var hotelInfo = Info{Title: "Hospitality Management", Examiner: "offline", Input: runtime.SourceMic}

// fixtureModel is the console after the recorded hotel session, colourless and read at the
// last event's time, so frames are stable.
func fixtureModel(t *testing.T, b Backend, w, h int) *Model {
	t.Helper()
	m := newTestModel(t, hotelInfo, b, WithEventClock())
	m.Apply(readJSONL(t, hotelJSONL)...)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// renderPaneAt draws one pane alone in a w×h box.
func renderPaneAt(m *Model, id PaneID, w, h int) string {
	m.panes[id].setSize(w-2, h-2)
	title, badge, content := paneContent(m.panes[id])
	return Plain(strings.Join(box(m.styles, title, badge, false, w, h, content), "\n")) + "\n"
}

func TestGoldenScreens(t *testing.T) {
	events := readJSONL(t, hotelJSONL)
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			got, err := Screenshot(hotelInfo, events, sz.w, sz.h)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(got, "\n")
			if len(lines) != sz.h {
				t.Fatalf("screen has %d lines, want %d", len(lines), sz.h)
			}
			requireFits(t, got, sz.w)
			requireGolden(t, fmt.Sprintf("screen_%dx%d.golden", sz.w, sz.h), []byte(got+"\n"))
		})
	}
}

func TestGoldenPanes(t *testing.T) {
	panes := []PaneID{PaneTranscript, PaneEvidence, PaneGuardrails, PaneTimers, PaneDebug}
	for _, sz := range goldenSizes {
		m := fixtureModel(t, &fakeBackend{}, sz.w, sz.h)
		for _, id := range panes {
			t.Run(fmt.Sprintf("%s_%dx%d", id, sz.w, sz.h), func(t *testing.T) {
				got := renderPaneAt(m, id, sz.w, sz.h)
				requireFits(t, got, sz.w)
				requireGolden(t, fmt.Sprintf("%s_%dx%d.golden", id, sz.w, sz.h), []byte(got))
			})
		}
	}
}

// TestGoldenOverlays covers the states a key puts the screen in: debug view, help, the
// instruction box and a confirmation.
func TestGoldenOverlays(t *testing.T) {
	cases := []struct {
		name string
		keys []tea.KeyPressMsg
		w, h int
	}{
		{"debug_120x40", []tea.KeyPressMsg{ctrl('r')}, 120, 40},
		{"debug_80x24", []tea.KeyPressMsg{ctrl('r')}, 80, 24},
		{"help_120x40", []tea.KeyPressMsg{{Code: tea.KeyF1}}, 120, 40},
		{"instruction_120x40", append([]tea.KeyPressMsg{ctrl('o')}, typed("Ask about weekend cover")...), 120, 40},
		{"confirm_end_80x24", []tea.KeyPressMsg{ctrl('x')}, 80, 24},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := fixtureModel(t, &fakeBackend{}, tc.w, tc.h)
			for _, k := range tc.keys {
				m.Update(k)
			}
			requireFits(t, m.Render(), tc.w)
			requireGolden(t, "screen_"+tc.name+".golden", []byte(Plain(m.Render())+"\n"))
		})
	}
}
