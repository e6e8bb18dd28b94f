package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestStatusLineKeepsTheSessionID: a long exam title gives way before the session id, which
// is what `examtui run --resume` needs; a short title is left whole.
func TestStatusLineKeepsTheSessionID(t *testing.T) {
	const long = "Hospitality Management - Interactive Oral Assessment"
	cases := []struct {
		title     string
		width     int
		wantTitle string
	}{
		{long, 120, " Hospitality Management - Interactive Oral Assess…"},
		{long, 200, " " + long},
		{"Short exam", 120, " Short exam"},
		{long, 100, " Hospitality Management - Int…"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d", tc.title, tc.width), func(t *testing.T) {
			m := newTestModel(t, Info{Title: tc.title, Examiner: "offline", SessionID: "7a42071e8144115b"}, &fakeBackend{})
			m.Update(windowSize(tc.width, 40))
			line := Plain(m.statusLine())
			if w := ansi.StringWidth(line); w > tc.width {
				t.Errorf("status line is %d cells wide, want ≤ %d", w, tc.width)
			}
			if !strings.HasPrefix(line, tc.wantTitle+" · ") {
				t.Errorf("status line %q does not start with %q", line, tc.wantTitle)
			}
			if !strings.Contains(line, "session 7a42071e8144115b") {
				t.Errorf("status line %q lost the session id", line)
			}
		})
	}
}
