package headless

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
)

// Result is the outcome of one scripted run.
type Result struct {
	Script    string            `json:"script"`
	Spec      string            `json:"spec"`
	Examiner  string            `json:"examiner"`
	SessionID string            `json:"sessionId"`
	Passed    bool              `json:"passed"`
	State     runtime.ExamState `json:"state"`
	Visits    []string          `json:"visits"`
	// Variants is the variant each node with variants got, when last entered.
	Variants         map[string]string     `json:"variants,omitempty"`
	Evidence         map[string]int        `json:"evidence"`
	Guardrails       map[string]int        `json:"guardrails"`
	Commands         map[string]int        `json:"commands"`
	Events           map[string]int        `json:"events"`
	Turns            []TurnResult          `json:"turns"`
	MaxTurnLatencyMs float64               `json:"maxTurnLatencyMs"`
	TurnsRun         int                   `json:"turnsRun"`
	TurnsSkipped     int                   `json:"turnsSkipped,omitempty"`
	StepErrors       []string              `json:"stepErrors,omitempty"`
	Failures         []Failure             `json:"failures,omitempty"`
	WallTime         time.Duration         `json:"wallTimeNs"`
	Log              []runtime.Event       `json:"-"`
	Ledger           []runtime.LedgerEntry `json:"ledger,omitempty"`
	// Voice holds the candidate side's measurements of a run through a live room (room.go).
	Voice *VoiceReport `json:"voice,omitempty"`
}

// TurnResult is one observed candidate turn.
type TurnResult struct {
	Turn      int     `json:"turn"`
	NodeID    string  `json:"nodeId"`
	Said      string  `json:"said"`
	Decision  string  `json:"decision"`
	LatencyMs float64 `json:"latencyMs"`
}

// Failure is one unmet expectation.
type Failure struct {
	Expectation string `json:"expectation"`
	Expected    string `json:"expected"`
	Actual      string `json:"actual"`
}

func (f Failure) String() string {
	return fmt.Sprintf("%s: expected %s, got %s", f.Expectation, f.Expected, f.Actual)
}

// collect derives the run's counts from its event log.
func (r *Result) collect(events []runtime.Event, snap runtime.Snapshot) {
	r.Log = events
	r.State = snap.State
	r.Ledger = snap.Ledger
	r.Evidence, r.Guardrails, r.Commands, r.Events = map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	r.Variants = map[string]string{}
	said := map[string]string{}
	for _, ev := range events {
		r.Events[ev.Event.String()]++
		p, err := ev.Decode()
		if err != nil {
			continue
		}
		switch p := p.(type) {
		case *runtime.NodeEnteredPayload:
			r.Visits = append(r.Visits, p.NodeID)
			if p.Variant != "" {
				r.Variants[p.NodeID] = p.Variant
			}
		case *runtime.EvidenceUpdatePayload:
			if p.Misconception == nil {
				r.Evidence[p.SignalType]++
			}
		case *runtime.GuardrailTriggeredPayload:
			r.Guardrails[p.Guardrail]++
		case *runtime.CommandAcknowledgedPayload:
			if p.Source != runtime.CommandByConfirmation { // the answer to "are you sure?" is not a new command
				r.Commands[p.Command]++
			}
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker == runtime.SpeakerCandidate {
				said["last"] = p.Text
			}
		case *runtime.ObservationPayload:
			dec := p.Decision.Action.String()
			if p.Decision.Reason != "" {
				dec += " (" + p.Decision.Reason + ")"
			}
			if p.Decision.NextNode != "" {
				dec += " → " + p.Decision.NextNode
			}
			r.Turns = append(r.Turns, TurnResult{Turn: p.Turn, NodeID: p.NodeID, Said: said["last"], Decision: dec, LatencyMs: p.Latency.TotalMs})
			r.MaxTurnLatencyMs = max(r.MaxTurnLatencyMs, p.Latency.TotalMs)
		}
	}
}

// check compares the run with the expectations; every count is exact.
func (r *Result) check(e Expect) {
	fail := func(name string, want, got any) {
		r.Failures = append(r.Failures, Failure{Expectation: name, Expected: fmt.Sprint(want), Actual: fmt.Sprint(got)})
	}
	if e.Completed != nil && *e.Completed != (r.State == runtime.StateCompleted) {
		fail("completed", *e.Completed, fmt.Sprintf("%v (state %s)", r.State == runtime.StateCompleted, r.State))
	}
	if e.State != nil && *e.State != r.State.String() {
		fail("state", *e.State, r.State)
	}
	if e.Visits != nil && strings.Join(*e.Visits, " ") != strings.Join(r.Visits, " ") {
		fail("visits", "["+strings.Join(*e.Visits, ", ")+"]", "["+strings.Join(r.Visits, ", ")+"]")
	}
	counts := func(name string, want, got map[string]int) {
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if want[k] != got[k] {
				fail(name+"."+k, want[k], got[k])
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Variants)) {
		if e.Variants[k] != r.Variants[k] {
			fail("variants."+k, e.Variants[k], r.Variants[k])
		}
	}
	counts("evidence", e.Evidence, r.Evidence)
	counts("guardrails", e.Guardrails, r.Guardrails)
	counts("commands", e.Commands, r.Commands)
	counts("events", e.Events, r.Events)
	if e.MaxTurnLatencyMs != nil && r.MaxTurnLatencyMs > *e.MaxTurnLatencyMs {
		fail("maxTurnLatencyMs", fmt.Sprintf("<= %g", *e.MaxTurnLatencyMs), fmt.Sprintf("%.1f", r.MaxTurnLatencyMs))
	}
	r.checkDecisions(e)
	for _, se := range r.StepErrors {
		r.Failures = append(r.Failures, Failure{Expectation: "step", Expected: "no error", Actual: se})
	}
	r.Passed = len(r.Failures) == 0
}
