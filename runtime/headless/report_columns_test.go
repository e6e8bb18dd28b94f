package headless

import (
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
)

// TestReportColumnsStay: the turns' latency column stays in one place however long the node
// ids and decisions are, and a run the script ended mid-exam says what sessions will call it.
func TestReportColumnsStay(t *testing.T) {
	r := &Result{Script: "s.yaml", Spec: "e.yaml", Examiner: "offline", State: runtime.StateInProgress, Passed: true,
		Turns: []TurnResult{
			{Turn: 1, NodeID: "welcome", Said: "Hello", Decision: "transition (evidence_sufficient) → scenario-hotel-breakfast-and-more", LatencyMs: 0.1},
			{Turn: 2, NodeID: "scenario-hotel-breakfast-long-name", Said: "Why?", Decision: "command (clarification)", LatencyMs: 12.5},
			{Turn: 3, NodeID: "n", Said: "", Decision: "follow_up", LatencyMs: 100},
		}}
	var b strings.Builder
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "in_progress (the script ended before the exam did; stored, the session lists as interrupted)") {
		t.Errorf("state does not say what sessions will call it:\n%s", out)
	}
	col := -1
	for _, l := range strings.Split(out, "\n") {
		i := strings.Index(l, " ms")
		if !strings.HasPrefix(l, "     ") || i < 0 {
			continue
		}
		if col >= 0 && len([]rune(l[:i])) != col {
			t.Errorf("latency column moved to %d (was %d):\n%s", len([]rune(l[:i])), col, out)
		}
		col = len([]rune(l[:i]))
	}
	if col < 0 {
		t.Fatalf("no turn lines:\n%s", out)
	}
}
