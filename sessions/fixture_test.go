package sessions

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

var fixtureStart = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// testExam is the hotel-breakfast exam in compiled form (the parts the sessions package reads).
func testExam() *spec.Exam {
	return &spec.Exam{
		IRVersion: spec.IRVersion, AdapterVersion: spec.AdapterVersion, SpecVersion: "1",
		ID: "hospitality-oral-b2", Title: "Hospitality Management - Interactive Oral Assessment", Language: "en",
		TotalTimeBudgetSec: 1200, EntryNode: "welcome",
		Evidence: []spec.EvidenceDef{
			{SignalType: "proposes_options", Description: "Puts forward two or more workable courses of action", Levels: []string{"description", "analysis", "evaluation"}},
			{SignalType: "analyses_clientele", Description: "Relates the proposal to the guests", Levels: []string{"description", "analysis", "evaluation"}},
			{SignalType: "considers_budget", Description: "Reasons about costs", Levels: []string{"description", "analysis", "evaluation"}},
			{SignalType: "plans_staffing", Description: "Matches staff to workload", Levels: []string{"description", "analysis", "evaluation"}},
		},
		Nodes: []spec.CompiledNode{
			{NodeID: "welcome", Index: 0, Kind: spec.KindScaffolding, Controller: spec.NodeController{Persona: "examiner", MaxFollowUps: 1, TimeBudgetSec: 90, RequiredEvidenceCount: 1, Next: "scenario-hotel-breakfast"}},
			{NodeID: "scenario-hotel-breakfast", Index: 1, Kind: spec.KindAssessment, Controller: spec.NodeController{Persona: "hotel_manager",
				EvidenceSignals: []string{"proposes_options", "analyses_clientele", "considers_budget"}, MaxFollowUps: 3, TimeBudgetSec: 300, RequiredEvidenceCount: 2, Next: "scenario-staff-rota"}},
			{NodeID: "scenario-staff-rota", Index: 2, Kind: spec.KindAssessment, Controller: spec.NodeController{Persona: "hotel_manager",
				EvidenceSignals: []string{"plans_staffing", "considers_budget"}, MaxFollowUps: 2, TimeBudgetSec: 240, RequiredEvidenceCount: 2, Next: "wrapup"}},
			{NodeID: "wrapup", Index: 3, Kind: spec.KindEnd, Controller: spec.NodeController{Persona: "examiner"}},
		},
	}
}

// script builds a session's event stream with deterministic timestamps.
type script struct {
	t      testing.TB
	id     string
	now    time.Time
	seq    int64
	events []runtime.Event
}

func newScript(t testing.TB, id string, start time.Time) *script {
	return &script{t: t, id: id, now: start}
}

func (s *script) after(d time.Duration, p runtime.Payload) *script {
	s.t.Helper()
	s.now = s.now.Add(d)
	s.seq++
	ev, err := runtime.NewEvent(s.id, s.seq, s.now, p)
	if err != nil {
		s.t.Fatal(err)
	}
	s.events = append(s.events, ev)
	return s
}

func obs(node string, turn int, valid bool, action runtime.DecisionAction, reason string, lat runtime.Latency) *runtime.ObservationPayload {
	raw := json.RawMessage(`{"signals":[],"answerQuality":"substantive","spokenText":"..."}`)
	return &runtime.ObservationPayload{NodeID: node, Turn: turn, Examiner: "offline", Raw: raw, Valid: valid,
		Decision: runtime.Decision{Action: action, Reason: reason}, Latency: lat}
}

func cand(node, segID, text string, conf float64, ms int64) *runtime.TranscriptSegmentPayload {
	return &runtime.TranscriptSegmentPayload{SegmentID: segID, NodeID: node, Speaker: runtime.SpeakerCandidate, Text: text,
		Confidence: conf, TimestampMs: ms, DurationMs: 2400, IsFinal: true, Source: runtime.SourceTyped}
}

// examEvents is a realistic complete exam: three nodes with evidence, a follow-up, a
// guardrail interception, a command, a low-confidence recovery, an examiner instruction, a
// time warning and a beat.
func examEvents(t testing.TB, id string, start time.Time) []runtime.Event {
	const b, r = "scenario-hotel-breakfast", "scenario-staff-rota"
	s := newScript(t, id, start)
	s.after(0, &runtime.ExamStatePayload{State: runtime.StateReady, Previous: runtime.StateCreated})
	s.after(10*time.Millisecond, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady})
	s.after(5*time.Millisecond, &runtime.NodeEnteredPayload{NodeID: "welcome", Kind: "scaffolding", Persona: "examiner", MaxFollowUps: 1, TimeBudgetSec: 90, Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 4}})
	s.after(200*time.Millisecond, &runtime.SpokenPayload{NodeID: "welcome", Text: "Welcome. This is a practice oral assessment. It has two short scenarios.", Source: runtime.SpokenIntro})
	s.after(3*time.Second, &runtime.SpokenPayload{NodeID: "welcome", Text: "Before we start, could you tell me your name and the course you are on?", Source: runtime.SpokenPrompt})
	s.after(6*time.Second, cand("welcome", "seg-1", "I'm Alex, I study hospitality management, second year.", 1, 9200))
	s.after(420*time.Millisecond, obs("welcome", 1, true, "transition", "evidence_sufficient", runtime.Latency{LLMCompleteMs: 3, FiltersMs: 0.4, TotalMs: 4}))
	s.after(5*time.Millisecond, &runtime.NodeExitPayload{NodeID: "welcome", Reason: runtime.TransitionExit(spec.ReasonEvidenceSufficient), Next: b, ElapsedMs: 9640, EvidenceCount: 0})
	s.after(1*time.Millisecond, &runtime.NodeEnteredPayload{NodeID: b, Kind: "assessment", Persona: "hotel_manager", EvidenceTargets: []string{"proposes_options", "analyses_clientele", "considers_budget"}, MaxFollowUps: 3, TimeBudgetSec: 300, Progress: runtime.Progress{CurrentNodeIndex: 2, TotalNodes: 4}, From: "welcome", Reason: "evidence_sufficient"})
	s.after(200*time.Millisecond, &runtime.SpokenPayload{NodeID: b, Text: "Sam says: our breakfast is losing money and guests are unhappy. What would you do?", Source: runtime.SpokenPrompt})
	s.after(14*time.Second, cand(b, "seg-2", "We could open a grab-and-go counter for business travellers, or alternatively stagger the buffet.", 0.91, 24000))
	s.after(650*time.Millisecond, obs(b, 1, true, "follow_up", "", runtime.Latency{EndpointingMs: 300, STTMs: 180, LLMFirstTokenMs: 240, LLMCompleteMs: 610, FiltersMs: 1, TTSFirstByteMs: 150, TotalMs: 1480}))
	s.after(2*time.Millisecond, &runtime.EvidenceUpdatePayload{NodeID: b, SignalType: "proposes_options", RubricLevel: "analysis", Excerpt: "grab-and-go counter ... or alternatively stagger the buffet", Confidence: 0.86, STTConfidence: runtime.STTSummary{Min: 0.91, Max: 0.91, Mean: 0.91}, Coverage: 1.0 / 3, Accepted: 1, Required: 2})
	s.after(1*time.Millisecond, &runtime.EvidenceUpdatePayload{NodeID: b, SignalType: "analyses_clientele", RubricLevel: "description", Excerpt: "business travellers", Confidence: 0.72, STTConfidence: runtime.STTSummary{Min: 0.91, Max: 0.91, Mean: 0.91}, Coverage: 2.0 / 3, Accepted: 2, Required: 2})
	s.after(1*time.Millisecond, &runtime.GuardrailTriggeredPayload{Guardrail: "rubric_leak", NodeID: b, Action: "replace", OriginalText: "Good, that shows analysis of clientele. What would it cost?", ReplacementText: "What would that cost us, and how would we pay for it?", Detail: "named a rubric level"})
	s.after(1*time.Millisecond, &runtime.FollowUpIssuedPayload{NodeID: b, FollowUpType: "probe", Count: 1, Max: 3, Text: "What would that cost us, and how would we pay for it?"})
	s.after(1*time.Millisecond, &runtime.SpokenPayload{NodeID: b, Text: "What would that cost us, and how would we pay for it?", Source: runtime.SpokenExaminer, Intercepted: true})
	s.after(5*time.Second, cand(b, "seg-3", "Sorry, could you repeat that?", 0.97, 31000))
	s.after(300*time.Millisecond, &runtime.CommandAcknowledgedPayload{Command: "repeat", NodeID: b, Accepted: true, Source: runtime.CommandBySafetyNet})
	s.after(1*time.Millisecond, &runtime.SpokenPayload{NodeID: b, Text: "What would that cost us, and how would we pay for it?", Source: runtime.SpokenCommand})
	s.after(2*time.Second, &runtime.AdminInstructionPayload{Mode: runtime.AdminQueued, Text: "Ask about the price of the grab-and-go items.", Sender: "examiner:jo", NodeID: b, Status: runtime.AdminReceived})
	s.after(9*time.Second, cand(b, "seg-4", "mumble the price would", 0.31, 45000))
	s.after(500*time.Millisecond, obs(b, 2, true, "continue", "", runtime.Latency{EndpointingMs: 280, STTMs: 210, LLMFirstTokenMs: 260, LLMCompleteMs: 700, FiltersMs: 1, TTSFirstByteMs: 160, TotalMs: 1610}))
	s.after(1*time.Millisecond, &runtime.RecoveryPayload{Kind: runtime.RecoveryLowConfidence, NodeID: b, SignalType: "considers_budget", Detail: "segment confidence 0.31 below 0.50"})
	s.after(1*time.Millisecond, &runtime.AdminInstructionPayload{Mode: runtime.AdminQueued, Text: "Ask about the price of the grab-and-go items.", Sender: "examiner:jo", NodeID: b, Status: runtime.AdminConsumed})
	s.after(1*time.Millisecond, &runtime.SpokenPayload{NodeID: b, Text: "Could you say a little more about the price of those grab-and-go items?", Source: runtime.SpokenExaminer})
	s.after(11*time.Second, cand(b, "seg-5", "A coffee and pastry bundle at six pounds covers the cost, the margin is about forty percent.", 0.88, 62000))
	s.after(700*time.Millisecond, obs(b, 3, true, "transition", "evidence_sufficient", runtime.Latency{EndpointingMs: 310, STTMs: 190, LLMFirstTokenMs: 230, LLMCompleteMs: 650, FiltersMs: 1, TTSFirstByteMs: 140, TotalMs: 1520}))
	s.after(1*time.Millisecond, &runtime.EvidenceUpdatePayload{NodeID: b, SignalType: "considers_budget", RubricLevel: "analysis", Excerpt: "bundle at six pounds covers the cost, the margin is about forty percent", Confidence: 0.8, STTConfidence: runtime.STTSummary{Min: 0.88, Max: 0.88, Mean: 0.88}, Coverage: 1, Accepted: 3, Required: 2})
	s.after(1*time.Millisecond, &runtime.NodeExitPayload{NodeID: b, Reason: runtime.TransitionExit(spec.ReasonEvidenceSufficient), Next: r, ElapsedMs: 44570, FollowUps: 1, EvidenceCount: 3})
	s.after(1*time.Millisecond, &runtime.NodeEnteredPayload{NodeID: r, Kind: "assessment", Persona: "hotel_manager", EvidenceTargets: []string{"plans_staffing", "considers_budget"}, MaxFollowUps: 2, TimeBudgetSec: 240, Progress: runtime.Progress{CurrentNodeIndex: 3, TotalNodes: 4}, From: b, Reason: "evidence_sufficient"})
	s.after(200*time.Millisecond, &runtime.SpokenPayload{NodeID: r, Text: "Sam asks: how should we staff the restaurant for the conference lunches?", Source: runtime.SpokenPrompt})
	s.after(30*time.Second, &runtime.TimeWarningPayload{Scope: runtime.WarningNode, NodeID: r, RemainingSec: 60})
	s.after(2*time.Second, cand(r, "seg-6", "We need four extra servers on a split shift, which adds about 36 staff hours a day.", 0.93, 95000))
	s.after(600*time.Millisecond, obs(r, 1, false, "continue", "", runtime.Latency{EndpointingMs: 290, STTMs: 170, LLMFirstTokenMs: 900, LLMCompleteMs: 2400, TotalMs: 3100}))
	s.after(1*time.Millisecond, &runtime.SystemErrorPayload{Code: "malformed_observation", Message: "report_observation arguments were not valid JSON; fallback line used", NodeID: r})
	s.after(1*time.Millisecond, &runtime.EvidenceUpdatePayload{NodeID: r, SignalType: "plans_staffing", RubricLevel: "analysis", Excerpt: "four extra servers on a split shift", Confidence: 0.9, STTConfidence: runtime.STTSummary{Min: 0.93, Max: 0.93, Mean: 0.93}, Coverage: 0.5, Accepted: 1, Required: 2,
		Misconception: &runtime.Misconception{Concept: "labour cost", Misconception: "counts hours but not overtime rates", Correction: "split shifts may attract premium pay"}})
	s.after(1*time.Millisecond, &runtime.BeatFiredPayload{Message: "Two minutes remain in the exam. Move towards a close.", Scope: "exam", AtSec: 1080, Wrapup: true})
	s.after(1*time.Millisecond, &runtime.NodeExitPayload{NodeID: r, Reason: runtime.TransitionExit(spec.ReasonTimeExhausted), Next: "wrapup", ElapsedMs: 33000, EvidenceCount: 1})
	s.after(1*time.Millisecond, &runtime.NodeEnteredPayload{NodeID: "wrapup", Kind: "end", Persona: "examiner", Progress: runtime.Progress{CurrentNodeIndex: 4, TotalNodes: 4}, From: r, Reason: "time_exhausted"})
	s.after(200*time.Millisecond, &runtime.SpokenPayload{NodeID: "wrapup", Text: "That is the end of the assessment. Thank you for your time.", Source: runtime.SpokenPrompt})
	s.after(3*time.Second, &runtime.ExamStatePayload{State: runtime.StateCompleted, Previous: runtime.StateInProgress, Reason: "end node reached"})
	s.after(1*time.Millisecond, &runtime.ExamCompletedPayload{State: runtime.StateCompleted, DurationMs: 91000,
		NodesVisited: []string{"welcome", b, r, "wrapup"}, Evidence: map[string]int{"proposes_options": 1, "analyses_clientele": 1, "considers_budget": 1, "plans_staffing": 1},
		Coverage: map[string]float64{b: 1, r: 0.5}})
	return s.events
}

// openTestStore opens a fresh store in a temporary directory.
func openTestStore(t testing.TB, opts ...Option) *Store {
	t.Helper()
	st, err := Open(context.Background(), t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// recordSession stores a full session through the journal and returns it.
func recordSession(t testing.TB, st *Store, id string, events func(id string) []runtime.Event) *Session {
	t.Helper()
	sess := createSession(t, st, Meta{ID: id, Exam: testExam(), Candidate: "Alex Doe", Examiner: "offline", Input: runtime.SourceTyped,
		SpecPath: "examples/hotel-breakfast.yaml", StartedAt: fixtureStart})
	j := openJournal(t, st, sess.ID)
	publishAll(t, j, events(sess.ID))
	closeJournal(t, j)
	return getSession(t, st, sess.ID)
}

// recordExam records the fixture exam (examEvents from fixtureStart) as session id.
func recordExam(t testing.TB, st *Store, id string) *Session {
	t.Helper()
	return recordSession(t, st, id, func(id string) []runtime.Event { return examEvents(t, id, fixtureStart) })
}

// recorder keeps every delivered event.
type recorder struct {
	mu     sync.Mutex
	events []runtime.Event
}

func (r *recorder) Deliver(ev runtime.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func (r *recorder) Events() []runtime.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}
