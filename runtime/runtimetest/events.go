package runtimetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// SampleEvents returns one event of every type, with assessment content that must never reach
// the candidate.
func SampleEvents(t testing.TB) []runtime.Event {
	t.Helper()
	ts := time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)
	payloads := []runtime.Payload{
		&runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady, Reason: "started",
			Nodes: []string{"welcome", "scenario-hotel-breakfast"}, TotalTimeBudgetSec: 1200,
			DeadlineAt: "2026-11-23T09:35:00Z", ExamDeadlineAt: "2026-11-23T09:50:00Z"},
		&runtime.NodeEnteredPayload{NodeID: "scenario-hotel-breakfast", Kind: "assessment", Persona: "hotel_manager",
			Scenario: "Breakfast revenue fell by 15%.", EvidenceTargets: []string{"proposes_options", "considers_budget"},
			MaxFollowUps: 3, TimeBudgetSec: 300, Progress: runtime.Progress{CurrentNodeIndex: 2, TotalNodes: 3},
			From: "welcome", Reason: "evidence_sufficient", DeadlineAt: "2026-11-23T09:35:00Z",
			RequiredEvidenceCount: 2, MaxOffTopicRedirects: 2, MaxClarifications: 2},
		&runtime.TranscriptSegmentPayload{SegmentID: "seg-1", NodeID: "scenario-hotel-breakfast", Speaker: "candidate",
			Text: "We could open a second buffet line.", Confidence: 0.91, TimestampMs: 1200, DurationMs: 2400, IsFinal: true, Source: "room"},
		&runtime.ObservationPayload{NodeID: "scenario-hotel-breakfast", Turn: 1, Examiner: "offline",
			Raw: json.RawMessage(`{"signals":[{"signalType":"proposes_options","rubricLevel":"analysis"}]}`), Valid: true,
			Decision: runtime.Decision{Action: "follow_up", Reason: "needs_follow_up"}},
		&runtime.EvidenceUpdatePayload{NodeID: "scenario-hotel-breakfast", SignalType: "proposes_options", RubricLevel: "analysis",
			Excerpt: "second buffet line", Confidence: 0.8, STTConfidence: runtime.STTSummary{Min: 0.9, Max: 0.95, Mean: 0.92},
			Coverage: 0.5, Accepted: 1, Required: 2},
		&runtime.FollowUpIssuedPayload{NodeID: "scenario-hotel-breakfast", FollowUpType: "considers_budget", Count: 1, Max: 3,
			Text: "What would that cost us?"},
		&runtime.CommandAcknowledgedPayload{Command: "repeat", NodeID: "scenario-hotel-breakfast", Accepted: true, Source: "safety_net", Detail: "1 of 2"},
		&runtime.TimeWarningPayload{Scope: "node", NodeID: "scenario-hotel-breakfast", RemainingSec: 60},
		&runtime.GuardrailTriggeredPayload{Guardrail: "rubric_leak", NodeID: "scenario-hotel-breakfast", Action: "replaced",
			OriginalText: "That shows analysis-level reasoning.", ReplacementText: "Thank you. Please go on."},
		&runtime.RecoveryPayload{Kind: "stt_low_confidence", NodeID: "scenario-hotel-breakfast", SignalType: "considers_budget"},
		&runtime.AdminInstructionPayload{Mode: "queued", Text: "Probe the budget more.", Sender: "examiner-1", Status: "received"},
		&runtime.BeatFiredPayload{Message: "Half the time is gone.", Scope: "exam", AtSec: 600},
		&runtime.SpokenPayload{NodeID: "scenario-hotel-breakfast", Text: "Thank you. Please go on.", Source: "examiner", Intercepted: true, TTSSpeed: 1,
			Part: 1, Streamed: true},
		&runtime.SystemErrorPayload{Code: "llm_malformed", Message: "report_observation missing spokenText", NodeID: "scenario-hotel-breakfast"},
		&runtime.ExaminerSwitchedPayload{From: "gpt-4o-mini", To: "offline", Failures: 3, LastError: "llm: server error (HTTP 5xx)",
			Policy: "offline", NodeID: "scenario-hotel-breakfast"},
		&runtime.NodeExitPayload{NodeID: "scenario-hotel-breakfast", Reason: "evidence_sufficient", Next: "wrap-up", ElapsedMs: 90000, FollowUps: 1, EvidenceCount: 2},
		&runtime.ExamCompletedPayload{State: runtime.StateCompleted, Reason: "all_nodes_done", DurationMs: 600000,
			NodesVisited: []string{"welcome", "scenario-hotel-breakfast"}, Evidence: map[string]int{"proposes_options": 1},
			Coverage: map[string]float64{"scenario-hotel-breakfast": 0.5}},
		&runtime.SpecReloadPayload{Status: runtime.ReloadRejected, Spec: "exam.yaml", NodeID: "scenario-hotel-breakfast",
			Errors: []string{"exam.yaml:12:3: evidence signal \"proposes_options\" is not defined"}},
		&runtime.CandidatePresencePayload{Status: runtime.PresenceLeft, Identity: "candidate-1", Reason: "connection lost",
			NodeID: "scenario-hotel-breakfast"},
		&runtime.SpeechUsagePayload{Stage: runtime.SpeechTTS, Model: "tts-1", Characters: 42, NodeID: "scenario-hotel-breakfast"},
		&runtime.CallUsagePayload{Call: runtime.CallSpeculation, NodeID: "scenario-hotel-breakfast",
			Usage: &runtime.TurnUsage{Model: "gpt-4o-mini"}, Failed: true},
		&runtime.ContextSummaryPayload{NodeID: "scenario-hotel-breakfast", Compression: 1, Messages: 6,
			Summary: "The candidate proposed a second buffet line."},
	}
	evs := make([]runtime.Event, len(payloads))
	for i, p := range payloads {
		ev, err := runtime.NewEvent("sess-1", int64(i+1), ts.Add(time.Duration(i)*time.Second), p)
		if err != nil {
			t.Fatal(err)
		}
		evs[i] = ev
	}
	return evs
}

// CandidateNeverSees are words of SampleEvents that no payload the candidate receives may
// contain: assessment vocabulary, limits, the scenario context and the node's clock (the
// exam's clock, "examDeadlineAt", stays), and a command's detail ("1 of 2").
var CandidateNeverSees = []string{"evidenceTargets", "rubricLevel", "analysis", "proposes_options", "considers_budget",
	"evidence_sufficient", "coverage", "intercepted", "maxFollowUps", "\"evidence\"", "requiredEvidenceCount", "maxOffTopicRedirects",
	"maxClarifications", "streamed", "\"nodes\"", "\"scenario\"", "Breakfast revenue", "timeBudgetSec", "\"deadlineAt\"",
	"09:35", "\"detail\"", "1 of 2", "\"source\""}

// CandidateTypes are the event types the candidate may receive.
var CandidateTypes = map[runtime.EventType]bool{
	runtime.EventExamState: true, runtime.EventNodeEntered: true, runtime.EventTimeWarning: true,
	runtime.EventCommandAcknowledged: true, runtime.EventSpoken: true, runtime.EventExamCompleted: true,
}
