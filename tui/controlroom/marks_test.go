package controlroom

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/monitor"
)

// TestStatusAwaitingMarks: the status line says how many finished exams wait to be marked
// once the store has said, and nothing while none do.
func TestStatusAwaitingMarks(t *testing.T) {
	for _, tc := range []struct {
		count *int
		want  string
	}{{nil, ""}, {ptr(0), ""}, {ptr(3), "to mark 3"}} {
		m := fixtureModel(t, 3, 160, 20, true)
		m.applyUpdate(monitor.Update{AwaitingMarks: tc.count})
		status := ansi.Strip(strings.Split(m.Render(), "\n")[0])
		if got := strings.Contains(status, "to mark"); got != (tc.want != "") || (tc.want != "" && !strings.Contains(status, tc.want)) {
			t.Errorf("count %v: status line %q, want %q", tc.count, status, tc.want)
		}
	}
}

// TestStatusFailedPassbacks: the status line says how many scores the LMS gradebook did not
// take, and where to read which (the marking queue); nothing while there are none.
func TestStatusFailedPassbacks(t *testing.T) {
	for _, tc := range []struct {
		count *int
		want  string
	}{{nil, ""}, {ptr(0), ""}, {ptr(2), "gradebook refused 2 (marks queue)"}} {
		m := fixtureModel(t, 3, 160, 20, true)
		m.applyUpdate(monitor.Update{FailedPassbacks: tc.count})
		status := ansi.Strip(strings.Split(m.Render(), "\n")[0])
		if got := strings.Contains(status, "gradebook"); got != (tc.want != "") || (tc.want != "" && !strings.Contains(status, tc.want)) {
			t.Errorf("count %v: status line %q, want %q", tc.count, status, tc.want)
		}
	}
}

func ptr(i int) *int { return &i }
