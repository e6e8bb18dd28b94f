package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// TestTimersNodeListAtTheEnd: a node the exam stopped in is marked finished only when the exam
// completed; an end or an expiry inside it shows it unfinished.
func TestTimersNodeListAtTheEnd(t *testing.T) {
	cases := []struct {
		state runtime.ExamState
		want  []string
	}{
		{runtime.StateInProgress, []string{"✓ welcome", "▶ scenario", "  wrapup"}},
		{runtime.StatePaused, []string{"✓ welcome", "▶ scenario", "  wrapup"}},
		{runtime.StateAborted, []string{"✓ welcome", "■ scenario", "  wrapup"}},
		{runtime.StateExpired, []string{"✓ welcome", "■ scenario", "  wrapup"}},
		{runtime.StateCompleted, []string{"✓ welcome", "✓ scenario", "  wrapup"}},
		// Skipped, then the exam went on into wrapup.
		{"skipped", []string{"✓ welcome", "↷ scenario (skipped)", "▶ wrapup"}},
	}
	for _, tc := range cases {
		t.Run(tc.state.String(), func(t *testing.T) {
			r := newRecorder(t, "s-end", fixtureStart)
			r.at(0, &runtime.ExamStatePayload{State: runtime.StateReady, Previous: runtime.StateCreated,
				Nodes: []string{"welcome", "scenario", "wrapup"}})
			r.at(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady})
			r.at(0, &runtime.NodeEnteredPayload{NodeID: "welcome", Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 3}})
			r.at(time.Second, &runtime.NodeEnteredPayload{NodeID: "scenario", Progress: runtime.Progress{CurrentNodeIndex: 2, TotalNodes: 3}})
			if tc.state == "skipped" {
				r.at(time.Second, &runtime.NodeExitPayload{NodeID: "scenario", Reason: "skipped", Next: "wrapup"})
				r.at(0, &runtime.NodeEnteredPayload{NodeID: "wrapup", Progress: runtime.Progress{CurrentNodeIndex: 3, TotalNodes: 3}})
			} else if tc.state != runtime.StateInProgress {
				r.at(time.Second, &runtime.ExamStatePayload{State: tc.state, Previous: runtime.StateInProgress})
			}
			m := newTestModel(t, Info{Title: "t"}, &fakeBackend{}, WithEventClock())
			m.Apply(r.events...)
			lines := timersOf(m).lines(80, m.now())
			var nodes []string
			for i, l := range lines {
				if Plain(l) == "Nodes" {
					for _, n := range lines[i+1:] {
						nodes = append(nodes, strings.TrimRight(Plain(n), " "))
					}
				}
			}
			want := make([]string, len(tc.want))
			for i, w := range tc.want {
				want[i] = strings.TrimRight(w, " ")
			}
			if !slices.Equal(nodes, want) {
				t.Errorf("node list %q, want %q", nodes, want)
			}
		})
	}
}
