package tui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// requireGolden compares got with testdata/golden/name, rewriting it under -update.
func requireGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", name), got)
}

// recorder builds an event stream the way the runtime does: one session, gapless seq.
type recorder struct {
	t      *testing.T
	sid    string
	now    time.Time
	seq    int64
	events []runtime.Event
}

func newRecorder(t testing.TB, sid string, start time.Time) *recorder {
	r := &recorder{sid: sid, now: start}
	if tt, ok := t.(*testing.T); ok {
		r.t = tt
	}
	return r
}

// at advances the clock by d and records p.
func (r *recorder) at(d time.Duration, p runtime.Payload) {
	r.now = r.now.Add(d)
	r.seq++
	ev, err := runtime.NewEvent(r.sid, r.seq, r.now, p)
	if err != nil {
		panic(err)
	}
	r.events = append(r.events, ev)
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// fixtureStart is the recorded session's first instant.
var fixtureStart = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// hotelSession records a rehearsal of the hotel-breakfast exam that touches every pane:
// typed and spoken turns (one with low confidence), interim text, a command, a clarification,
// evidence with a misconception, a rejected signal, two interceptions, a queued instruction,
// a pause, a time warning, and an answer still being spoken at the end.
func hotelSession(t testing.TB) []runtime.Event {
	r := newRecorder(t, "s-hotel-0001", fixtureStart)
	nodes := []string{"welcome", "scenario-hotel-breakfast", "scenario-staff-rota", "wrapup"}
	r.at(0, &runtime.ExamStatePayload{State: runtime.StateReady, Previous: runtime.StateCreated, Nodes: nodes, TotalTimeBudgetSec: 900})
	r.at(time.Second, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady})
	r.at(0, &runtime.NodeEnteredPayload{NodeID: "welcome", Kind: "scaffolding", MaxFollowUps: 1, TimeBudgetSec: 90,
		Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 4}, DeadlineAt: rfc(r.now.Add(90 * time.Second))})
	r.at(time.Second, &runtime.SpokenPayload{NodeID: "welcome", Source: "intro",
		Text: "Welcome to the hospitality management oral assessment. Please tell me a little about yourself."})
	r.at(9*time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c1", NodeID: "welcome", Speaker: "candidate",
		Text: "Hello, I'm Sam and I have worked two summers in a hotel restaurant.", Confidence: 1, IsFinal: true, Source: "typed"})
	r.at(15*time.Millisecond, &runtime.ObservationPayload{NodeID: "welcome", Turn: 1, Examiner: "offline", Valid: true,
		Raw: rawJSON(map[string]any{"signals": []any{}, "answerQuality": "substantive", "spokenText": "Thank you, Sam."}),
		Decision: runtime.Decision{Action: "transition", Reason: "evidence_sufficient", NextNode: "scenario-hotel-breakfast",
			Trace: []runtime.DecisionStep{{Rule: "command", Fired: false}, {Rule: "time_budget"}, {Rule: "evidence_sufficiency", Fired: true, Detail: "scaffolding: first substantive answer"}}},
		Latency: runtime.Latency{LLMCompleteMs: 11, FiltersMs: 0.4, TotalMs: 14}})
	r.at(0, &runtime.SpokenPayload{NodeID: "welcome", Source: "examiner", Text: "Thank you, Sam."})
	r.at(0, &runtime.NodeExitPayload{NodeID: "welcome", Reason: "evidence_sufficient", Next: "scenario-hotel-breakfast", ElapsedMs: 11000})
	r.at(0, &runtime.NodeEnteredPayload{NodeID: "scenario-hotel-breakfast", Kind: "assessment",
		EvidenceTargets: []string{"proposes_options", "analyses_clientele", "considers_budget"}, MaxFollowUps: 3, TimeBudgetSec: 300,
		Progress: runtime.Progress{CurrentNodeIndex: 2, TotalNodes: 4}, From: "welcome", Reason: "evidence_sufficient",
		DeadlineAt: rfc(r.now.Add(300 * time.Second)), RequiredEvidenceCount: 2, MaxOffTopicRedirects: 2, MaxClarifications: 2})
	r.at(time.Second, &runtime.SpokenPayload{NodeID: "scenario-hotel-breakfast", Source: "prompt",
		Text: "Our hotel serves business travellers on weekdays and families at weekends. How would you organise breakfast?"})
	r.at(6*time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c2", NodeID: "scenario-hotel-breakfast", Speaker: "candidate",
		Text: "could you repeat", Confidence: 0.8, Source: "mic"})
	r.at(time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c2", NodeID: "scenario-hotel-breakfast", Speaker: "candidate",
		Text: "Could you repeat the question please?", Confidence: 0.91, IsFinal: true, Source: "mic", DurationMs: 1800})
	r.at(0, &runtime.CommandAcknowledgedPayload{Command: "repeat", NodeID: "scenario-hotel-breakfast", Accepted: true, Source: "safety_net"})
	r.at(time.Second, &runtime.SpokenPayload{NodeID: "scenario-hotel-breakfast", Source: "command",
		Text: "Of course. Our hotel serves business travellers on weekdays and families at weekends. How would you organise breakfast?"})
	r.at(8*time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c3", NodeID: "scenario-hotel-breakfast", Speaker: "candidate",
		Text:       "I would offer a hybrid of a buffet and an a la carte menu because business guests are in a hurry and families like choice.",
		Confidence: 0.88, IsFinal: true, Source: "mic", DurationMs: 6200})
	r.at(1790*time.Millisecond, &runtime.ObservationPayload{NodeID: "scenario-hotel-breakfast", Turn: 2, Examiner: "offline", Valid: true,
		Raw: rawJSON(map[string]any{"signals": []any{map[string]any{"signalType": "proposes_options", "rubricLevel": "analysis", "excerpt": "a hybrid of a buffet and an a la carte menu", "confidence": 0.86}},
			"answerQuality": "substantive", "needsFollowUp": true, "followUpType": "probe", "spokenText": "Good, that shows analysis of proposes_options. What about the budget?"}),
		Decision: runtime.Decision{Action: "follow_up", Reason: "evidence_insufficient", Trace: []runtime.DecisionStep{
			{Rule: "command"}, {Rule: "output_validation", Fired: true, Detail: "rubric_leak"}, {Rule: "time_budget"},
			{Rule: "follow_up_limit"}, {Rule: "evidence_sufficiency", Detail: "1 of 2"}, {Rule: "continue", Fired: true}}},
		Latency: runtime.Latency{EndpointingMs: 310, STTMs: 420, LLMFirstTokenMs: 380, LLMCompleteMs: 910, FiltersMs: 2, TTSFirstByteMs: 160, TotalMs: 1790}})
	r.at(0, &runtime.EvidenceUpdatePayload{NodeID: "scenario-hotel-breakfast", SignalType: "proposes_options", RubricLevel: "analysis",
		Excerpt: "a hybrid of a buffet and an a la carte menu", Confidence: 0.86, STTConfidence: runtime.STTSummary{Min: 0.88, Max: 0.88, Mean: 0.88},
		Coverage: 1.0 / 3, Accepted: 1, Required: 2})
	r.at(0, &runtime.GuardrailTriggeredPayload{Guardrail: "rubric_leak", NodeID: "scenario-hotel-breakfast", Action: "replace",
		OriginalText: "Good, that shows analysis of proposes_options. What about the budget?", ReplacementText: "Thank you. How would the budget shape that choice?",
		Detail: "signal id in spoken text"})
	r.at(0, &runtime.SpokenPayload{NodeID: "scenario-hotel-breakfast", Source: "examiner", Intercepted: true, Text: "Thank you. How would the budget shape that choice?"})
	r.at(0, &runtime.FollowUpIssuedPayload{NodeID: "scenario-hotel-breakfast", FollowUpType: "probe", Count: 1, Max: 3, Text: "How would the budget shape that choice?"})
	r.at(7*time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c4", NodeID: "scenario-hotel-breakfast", Speaker: "candidate",
		Text: "uh the the money is um cheaper buffet", Confidence: 0.34, IsFinal: true, Source: "mic", DurationMs: 2600})
	r.at(900*time.Millisecond, &runtime.ObservationPayload{NodeID: "scenario-hotel-breakfast", Turn: 3, Examiner: "offline", Valid: true,
		Raw:      rawJSON(map[string]any{"signals": []any{map[string]any{"signalType": "considers_budget", "excerpt": "cheaper buffet", "confidence": 0.6}}, "answerQuality": "partial"}),
		Decision: runtime.Decision{Action: "continue"}, Latency: runtime.Latency{STTMs: 400, LLMCompleteMs: 480, TotalMs: 900}})
	r.at(0, &runtime.RecoveryPayload{Kind: "stt_low_confidence", NodeID: "scenario-hotel-breakfast", SignalType: "considers_budget",
		Detail: "segment confidence 0.34 < 0.50"})
	r.at(0, &runtime.SpokenPayload{NodeID: "scenario-hotel-breakfast", Source: "examiner", Text: "Sorry, I didn't catch that. Could you say it again?"})
	r.at(5*time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c5", NodeID: "scenario-hotel-breakfast", Speaker: "candidate",
		Text: "What do you mean by budget?", Confidence: 1, IsFinal: true, Source: "typed"})
	r.at(0, &runtime.CommandAcknowledgedPayload{Command: "clarification", NodeID: "scenario-hotel-breakfast", Accepted: true, Source: "examiner"})
	r.at(time.Second, &runtime.SpokenPayload{NodeID: "scenario-hotel-breakfast", Source: "command", Text: "I mean the money the hotel can spend on breakfast each day."})
	r.at(12*time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c6", NodeID: "scenario-hotel-breakfast", Speaker: "candidate",
		Text:       "With a limited budget a buffet with a short a la carte list keeps costs down, and buffets need no staff at all.",
		Confidence: 0.93, IsFinal: true, Source: "mic", DurationMs: 5400})
	r.at(time.Second, &runtime.EvidenceUpdatePayload{NodeID: "scenario-hotel-breakfast", SignalType: "considers_budget", RubricLevel: "evaluation",
		Excerpt: "a buffet with a short a la carte list keeps costs down", Confidence: 0.81, STTConfidence: runtime.STTSummary{Min: 0.93, Max: 0.93, Mean: 0.93},
		Coverage: 2.0 / 3, Accepted: 2, Required: 2,
		Misconception: &runtime.Misconception{Concept: "buffet staffing", Misconception: "buffets need no staff", Correction: "buffets still need replenishment and cleaning staff"}})
	r.at(0, &runtime.ObservationPayload{NodeID: "scenario-hotel-breakfast", Turn: 4, Examiner: "offline", Valid: true,
		Raw:      rawJSON(map[string]any{"answerQuality": "substantive", "evidenceSufficient": true}),
		Decision: runtime.Decision{Action: "transition", Reason: "evidence_sufficient", NextNode: "scenario-staff-rota"},
		Latency:  runtime.Latency{EndpointingMs: 290, STTMs: 380, LLMCompleteMs: 700, FiltersMs: 1, TotalMs: 1371}})
	r.at(0, &runtime.NodeExitPayload{NodeID: "scenario-hotel-breakfast", Reason: "evidence_sufficient", Next: "scenario-staff-rota", ElapsedMs: 43000, FollowUps: 1, EvidenceCount: 2})
	r.at(0, &runtime.NodeEnteredPayload{NodeID: "scenario-staff-rota", Kind: "assessment",
		EvidenceTargets: []string{"plans_staffing", "communicates_clearly"}, MaxFollowUps: 2, TimeBudgetSec: 240,
		Progress: runtime.Progress{CurrentNodeIndex: 3, TotalNodes: 4}, From: "scenario-hotel-breakfast", Reason: "evidence_sufficient",
		DeadlineAt: rfc(r.now.Add(240 * time.Second)), RequiredEvidenceCount: 2, MaxOffTopicRedirects: 2, MaxClarifications: 2})
	r.at(time.Second, &runtime.SpokenPayload{NodeID: "scenario-staff-rota", Source: "prompt", Text: "How would you plan the breakfast staff rota for a busy weekend?"})
	r.at(2*time.Second, &runtime.AdminInstructionPayload{Mode: "queued", Text: "Ask about weekend cover.", Sender: "alice", NodeID: "scenario-staff-rota", Status: "received"})
	r.at(4*time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c7", NodeID: "scenario-staff-rota", Speaker: "candidate",
		Text: "I like football, did you see the match?", Confidence: 1, IsFinal: true, Source: "typed"})
	r.at(time.Second, &runtime.ObservationPayload{NodeID: "scenario-staff-rota", Turn: 5, Examiner: "offline", Valid: true,
		Raw:      rawJSON(map[string]any{"answerQuality": "off_topic", "needsFollowUp": true, "followUpType": "redirect", "spokenText": "As an AI language model I cannot discuss football."}),
		Decision: runtime.Decision{Action: "follow_up", Reason: "off_topic"}, Latency: runtime.Latency{LLMCompleteMs: 9, TotalMs: 12}})
	r.at(0, &runtime.GuardrailTriggeredPayload{Guardrail: "persona_break", NodeID: "scenario-staff-rota", Action: "replace",
		OriginalText: "As an AI language model I cannot discuss football.", ReplacementText: "Let's come back to the staff rota. Who would work the early shift?"})
	r.at(0, &runtime.SpokenPayload{NodeID: "scenario-staff-rota", Source: "examiner", Intercepted: true, Text: "Let's come back to the staff rota. Who would work the early shift?"})
	r.at(0, &runtime.FollowUpIssuedPayload{NodeID: "scenario-staff-rota", FollowUpType: "redirect", Count: 1, Max: 2})
	r.at(3*time.Second, &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress, Reason: "examiner"})
	r.at(30*time.Second, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StatePaused, Reason: "examiner"})
	r.at(169*time.Second, &runtime.TimeWarningPayload{Scope: "node", NodeID: "scenario-staff-rota", RemainingSec: 60})
	r.at(2*time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c8", NodeID: "scenario-staff-rota", Speaker: "candidate",
		Text: "Two shifts, an early team from six and", Confidence: 0.77, Source: "mic"})
	return r.events
}

// readJSONL loads a recorded event stream.
func readJSONL(t testing.TB, path string) []runtime.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []runtime.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev runtime.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		evs = append(evs, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return evs
}

const hotelJSONL = "testdata/events/hotel-session.jsonl"

// TestRecordedSessionIsCurrent keeps the recorded stream in step with its builder; the
// goldens are rendered from the file, as a replay would read it.
func TestRecordedSessionIsCurrent(t *testing.T) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, ev := range hotelSession(t) {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Golden(t, hotelJSONL, buf.Bytes())
	if t.Failed() {
		t.FailNow() // the goldens below are rendered from this file
	}
	for i, ev := range readJSONL(t, hotelJSONL) {
		if ev.Seq != int64(i+1) {
			t.Fatalf("seq %d at position %d: the stream must be gapless", ev.Seq, i)
		}
		if _, err := ev.Decode(); err != nil {
			t.Fatalf("event %d: %v", ev.Seq, err)
		}
	}
}
