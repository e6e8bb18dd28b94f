package controlroom

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/monitor"
)

// TestStatusCounts: the status line says how many finished exams wait to be marked, and how
// many scores the LMS gradebook refused (and where to read which: the marking queue), once the
// store has said, and nothing while there are none.
func TestStatusCounts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		update monitor.Update
		word   string // what the status line says only when the count is above 0
		want   string
	}{
		{"marks unknown", monitor.Update{}, "to mark", ""},
		{"none to mark", monitor.Update{AwaitingMarks: ptr(0)}, "to mark", ""},
		{"to mark", monitor.Update{AwaitingMarks: ptr(3)}, "to mark", "to mark 3"},
		{"passbacks unknown", monitor.Update{}, "gradebook", ""},
		{"no passback failed", monitor.Update{FailedPassbacks: ptr(0)}, "gradebook", ""},
		{"passbacks failed", monitor.Update{FailedPassbacks: ptr(2)}, "gradebook", "gradebook refused 2 (marks queue)"},
	} {
		m := fixtureModel(t, 3, 160, 20, true)
		m.applyUpdate(tc.update)
		status := ansi.Strip(strings.Split(m.Render(), "\n")[0])
		if got := strings.Contains(status, tc.word); got != (tc.want != "") || !strings.Contains(status, tc.want) {
			t.Errorf("%s: status line %q, want %q", tc.name, status, tc.want)
		}
	}
}

func ptr(i int) *int { return &i }
