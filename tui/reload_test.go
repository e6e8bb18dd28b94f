package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/runtime"
)

// TestReloadNotices: each spec_reload status reaches the footer; the overlay lists a rejected
// edit's errors; an applied reload redraws the graph from the exam it carries.
func TestReloadNotices(t *testing.T) {
	g := demoGraph(t)
	m := newTestModel(t, hotelInfo, &fakeBackend{}, WithEventClock(), WithExamGraph(g))
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	seq := int64(0)
	send := func(p *runtime.SpecReloadPayload) string {
		t.Helper()
		seq++
		ev, err := runtime.NewEvent("s", seq, time.Date(2026, 1, 5, 9, 0, int(seq), 0, time.UTC), p)
		if err != nil {
			t.Fatal(err)
		}
		m.Apply(ev)
		return Plain(m.Render())
	}
	s := send(&runtime.SpecReloadPayload{Status: runtime.ReloadRejected, Spec: "exam.yaml", NodeID: "welcome",
		Errors: []string{"exam.yaml:48:13: error: first problem", "exam.yaml:54:5: error: second problem"}})
	if !strings.Contains(s, "spec edit rejected: exam.yaml:48:13: error: first problem (+1 more, ctrl+g lists them)") {
		t.Errorf("rejected notice:\n%s", s)
	}
	m.Update(ctrl('g'))
	s = Plain(m.Render())
	for _, want := range []string{"Edit  rejected", "✗ exam.yaml:48:13: error: first problem", "✗ exam.yaml:54:5: error: second problem"} {
		if !strings.Contains(s, want) {
			t.Errorf("overlay lacks %q:\n%s", want, s)
		}
	}
	m.Update(ctrl('g'))
	if s := send(&runtime.SpecReloadPayload{Status: runtime.ReloadStaged, Spec: "exam.yaml"}); !strings.Contains(s, "spec edit compiled: it applies from the next node") {
		t.Errorf("staged notice:\n%s", s)
	}
	// The applied exam renames the breakfast scenario's successor edge target: the graph follows.
	exam := compileDemoExam(t, func(s string) string {
		return strings.NewReplacer("nodeId: wrapup", "nodeId: closing", "to: wrapup", "to: closing", "next: wrapup", "next: closing").Replace(s)
	})
	raw, err := json.Marshal(exam)
	if err != nil {
		t.Fatal(err)
	}
	if s := send(&runtime.SpecReloadPayload{Status: runtime.ReloadApplied, Spec: "exam.yaml", NodeID: "scenario-staff-rota", Exam: raw}); !strings.Contains(s, "spec edit applied from node scenario-staff-rota") {
		t.Errorf("applied notice:\n%s", s)
	}
	if m.graph.g.Node("closing") == nil || m.graph.g.Node("wrapup") != nil {
		t.Error("the graph was not redrawn from the applied exam")
	}
	if s := send(&runtime.SpecReloadPayload{Status: runtime.ReloadDropped, Detail: `the edited spec has no node "x"`}); !strings.Contains(s, `spec edit not applied: the edited spec has no node "x"`) {
		t.Errorf("dropped notice:\n%s", s)
	}
}
