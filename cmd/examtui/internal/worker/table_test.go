package worker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/worker"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit/agent"
)

// TestRenderWorkerTable: the live table shows each exam's room, candidate, node, state and
// elapsed time on one line, marks resumed exams, cuts long cells, and prints no control
// characters a dispatcher put into a name.
func TestRenderWorkerTable(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	jobs := []worker.JobInfo{
		{Room: "exam-01", Candidate: "Ada Lovelace", Node: "welcome", State: runtime.StateInProgress, Started: now.Add(-95 * time.Second)},
		{Room: "exam-02\x1b[2J", Candidate: "Bob\x07\x1b[31m Red", Node: "scenario-hotel-breakfast-and-more", State: runtime.StateCreated,
			Started: now.Add(-3 * time.Second), Resumed: true},
	}
	got := worker.RenderTable("examtui", agent.StateRegistered, false, jobs, now)
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), got)
	}
	for _, want := range []string{"registered — 2 exam(s)", "exam-01", "Ada Lovelace", "welcome", "in_progress", "1m35s",
		"Bob[31m Red (resume…", "scenario-hotel-breakfas…", "3s"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("control characters in the table: %q", got)
	}
	if empty := worker.RenderTable("examtui", agent.StateLost, true, nil, now); !strings.Contains(empty, "lost, full or draining") ||
		!strings.Contains(empty, "waiting for dispatches") {
		t.Errorf("empty table:\n%s", empty)
	}
}
