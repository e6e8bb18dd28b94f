package runtime_test

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

func TestDecisionTrace(t *testing.T) {
	payloads := []runtime.Payload{
		&runtime.ExamStatePayload{State: runtime.StateInProgress},
		&runtime.NodeEnteredPayload{NodeID: "welcome", Kind: "scaffolding"},
		&runtime.TranscriptSegmentPayload{NodeID: "welcome", Speaker: runtime.SpeakerCandidate, Text: "hello"},
		&runtime.CommandAcknowledgedPayload{Command: "repeat", NodeID: "welcome", Accepted: true},
		&runtime.GuardrailTriggeredPayload{Guardrail: "rubric_leak", NodeID: "welcome", Action: "intercept"},
		&runtime.RecoveryPayload{Kind: runtime.RecoveryLowConfidence, NodeID: "welcome", SignalType: "a"},
		&runtime.RecoveryPayload{Kind: runtime.RecoveryBargeIn, NodeID: "welcome"},
		&runtime.EvidenceUpdatePayload{NodeID: "welcome", SignalType: "a", RubricLevel: "analysis"},
		&runtime.FollowUpIssuedPayload{NodeID: "welcome", FollowUpType: "clarify", Count: 1, Max: 2},
		&runtime.AdminInstructionPayload{Mode: runtime.AdminQueued, Status: runtime.AdminConsumed, Text: "secret words"},
		&runtime.NodeExitPayload{NodeID: "welcome", Reason: "evidence_sufficient", Next: "end"},
		&runtime.SpokenPayload{NodeID: "end", Text: "Thank you."},
		&runtime.ExamCompletedPayload{State: runtime.StateCompleted, NodesVisited: []string{"welcome", "end"}},
	}
	var events []runtime.Event
	for i, p := range payloads {
		e, err := runtime.NewEvent("s1", int64(i+1), time.Unix(int64(i), 0), p)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	got, err := runtime.DecisionTrace(events)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"enter welcome",
		"command welcome repeat accepted=true",
		"guardrail welcome rubric_leak intercept",
		"rejected welcome a stt_low_confidence",
		"evidence welcome a analysis",
		"follow_up welcome clarify 1/2",
		"admin queued consumed",
		"exit welcome evidence_sufficient -> end",
		"completed completed welcome,end",
	}
	if d := runtime.TraceDiff(want, got); d != "" {
		t.Fatalf("trace differs:\n%s", d)
	}
	if strings.Contains(strings.Join(got, "\n"), "secret") {
		t.Fatal("an instruction's text is in the trace")
	}
	d := runtime.TraceDiff(want, append(append([]string{}, got[:4]...), "evidence welcome b -"))
	if !strings.Contains(d, "5 - evidence welcome a analysis") || !strings.Contains(d, "5 + evidence welcome b -") {
		t.Fatalf("diff does not name the first difference:\n%s", d)
	}
}
