package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/examgraph"
)

func demoGraph(t *testing.T) *examgraph.Graph {
	t.Helper()
	exam, _, err := spec.Compile(examples.DemoSpecName, examples.Demo())
	if err != nil {
		t.Fatal(err)
	}
	g, err := examgraph.New(exam)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGoldenGraphOverlay renders the graph overlay after the recorded hotel session (third
// node current, one follow-up and one off-topic answer there) at the smallest supported screen
// and a larger one.
func TestGoldenGraphOverlay(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := newTestModel(t, hotelInfo, &fakeBackend{}, WithEventClock(), WithExamGraph(demoGraph(t)))
			m.Apply(readJSONL(t, hotelJSONL)...)
			m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
			m.Update(ctrl('r')) // the Debug view, where a developer looks at transitions
			m.Update(ctrl('g'))
			got := Plain(m.Render())
			lines := strings.Split(got, "\n")
			if len(lines) != sz.h {
				t.Fatalf("screen has %d lines, want %d", len(lines), sz.h)
			}
			requireFits(t, m.Render(), sz.w)
			for _, want := range []string{
				"welcome ─evidence_sufficient→ scenario-hotel-breakfast", "─evidence_sufficient→ scenario-staff-rota",
				"→ wrapup", "follow-ups 1/2", "off-topic 1/2", "time 3:02/4:00", "●scenario-staff-rota", "✓welcome",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("overlay lacks %q", want)
				}
			}
			requireGolden(t, fmt.Sprintf("screen_graph_%dx%d.golden", sz.w, sz.h), []byte(got+"\n"))
			m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
			if strings.Contains(Plain(m.Render()), "Exam graph") {
				t.Error("esc did not close the graph overlay")
			}
		})
	}
}

// TestGraphKeyNeedsGraph: without a graph the key does nothing and the help does not offer it.
func TestGraphKeyNeedsGraph(t *testing.T) {
	m := fixtureModel(t, &fakeBackend{}, 120, 40)
	m.Update(ctrl('g'))
	if strings.Contains(Plain(m.Render()), "Exam graph") {
		t.Error("ctrl+g opened a graph the console does not have")
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyF1})
	if strings.Contains(Plain(m.Render()), "exam graph") {
		t.Error("help offers the graph key without a graph")
	}
	if _, err := New(hotelInfo, &fakeBackend{}, WithExamGraph(nil)); err == nil {
		t.Error("WithExamGraph(nil) accepted")
	}
}

func compileDemoExam(t *testing.T, edit func(string) string) *spec.Exam {
	t.Helper()
	exam, diags, err := spec.Compile(examples.DemoSpecName, []byte(edit(string(examples.Demo()))))
	if err != nil {
		t.Fatalf("%v\n%v", err, diags)
	}
	return exam
}

// TestGraphOverlayCompact: on a screen too short for what fires each transition, the overlay
// lists each transition on one line with its reasons, so nothing below is cut.
func TestGraphOverlayCompact(t *testing.T) {
	m := newTestModel(t, hotelInfo, &fakeBackend{}, WithEventClock(), WithExamGraph(demoGraph(t)))
	m.Apply(readJSONL(t, hotelJSONL)...)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 16})
	m.Update(ctrl('g'))
	s := Plain(m.Render())
	for _, want := range []string{"→ wrapup on evidence_sufficient, followups_exhausted, time_exhausted,", "Nodes ✓welcome"} {
		if !strings.Contains(s, want) {
			t.Errorf("compact overlay lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "examiner control advance") {
		t.Errorf("compact overlay still spells out the conditions:\n%s", s)
	}
}

// TestGraphAndTimersAgreeOnSkips: a node left by a skip is marked skipped in the Timers pane
// and in the graph overlay alike (the overlay once marked it ✓ done).
func TestGraphAndTimersAgreeOnSkips(t *testing.T) {
	m := newTestModel(t, hotelInfo, &fakeBackend{}, WithEventClock(), WithExamGraph(demoGraph(t)))
	r := newRecorder(t, "s-skip", fixtureStart)
	r.at(0, &runtime.NodeEnteredPayload{NodeID: "welcome", Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 4}})
	r.at(time.Second, &runtime.NodeExitPayload{NodeID: "welcome", Reason: runtime.TransitionExit(spec.ReasonSkipped), Next: "scenario-hotel-breakfast"})
	r.at(time.Second, &runtime.NodeEnteredPayload{NodeID: "scenario-hotel-breakfast", Progress: runtime.Progress{CurrentNodeIndex: 2, TotalNodes: 4}})
	m.Apply(r.events...)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if got := Plain(m.Render()); !strings.Contains(got, "↷ welcome (skipped)") {
		t.Fatalf("the Timers pane does not mark the skip:\n%s", got)
	}
	m.Update(ctrl('g'))
	got := Plain(m.Render())
	if !strings.Contains(got, "↷welcome") || strings.Contains(got, "✓welcome") {
		t.Errorf("the graph overlay does not mark the skip as the Timers pane does:\n%s", got)
	}
}
