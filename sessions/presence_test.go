package sessions

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// TestSummaryPresence: `sessions show` lists the candidate joining, leaving and rejoining and who
// paused, in order; sessions recorded before exam_state said who still show their pauses.
func TestSummaryPresence(t *testing.T) {
	start := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	payloads := []struct {
		after time.Duration
		p     runtime.Payload
	}{
		{0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady}},
		{0, &runtime.CandidatePresencePayload{Status: runtime.PresenceJoined, Identity: "cand-1", Present: 1}},
		{0, &runtime.NodeEnteredPayload{NodeID: "welcome", Kind: "scaffolding"}},
		{20 * time.Second, &runtime.CandidatePresencePayload{Status: runtime.PresenceLeft, Identity: "cand-1", Reason: "connection lost", NodeID: "welcome"}},
		{0, &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress, Reason: "candidate left",
			By: &runtime.Actor{Kind: runtime.ActorSystem, Reason: runtime.ReasonCandidateLeft}}},
		{42 * time.Second, &runtime.CandidatePresencePayload{Status: runtime.PresenceRejoined, Identity: "cand-1", NodeID: "welcome", AwayMs: 42000, Present: 1}},
		{0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StatePaused,
			By: &runtime.Actor{Kind: runtime.ActorSystem, Reason: runtime.ReasonCandidateRejoined}}},
		{5 * time.Second, &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress, Reason: "paused by examiner-ana",
			By: &runtime.Actor{Kind: runtime.ActorExaminer, Identity: "examiner-ana"}}},
		// As stored before By existed.
		{5 * time.Second, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StatePaused, Reason: "resumed by examiner-bo"}},
	}
	s := newScript(t, "s1", start)
	for _, p := range payloads {
		s.after(p.after, p.p)
	}
	sum, err := Summarize(&Session{ID: "s1"}, s.events)
	if err != nil {
		t.Fatal(err)
	}
	md := RenderMarkdown(sum, MarkdownOptions{})
	want := `
## Presence and pauses

- 00:00 candidate cand-1 joined
- 00:20 candidate cand-1 left (connection lost) in welcome
- 00:20 paused: candidate left
- 01:02 candidate cand-1 rejoined after 42s in welcome
- 01:02 resumed: candidate rejoined
- 01:07 paused by examiner-ana
- 01:12 resumed (resumed by examiner-bo)
`
	if !strings.Contains(md, want) {
		t.Fatalf("the record lacks\n%s\nin\n%s", want, md)
	}
}
