package runtime

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// The candidate's view is an allowlist: each delivered event type is re-encoded from a struct of
// its own that names the fields the candidate may see, so a field added to a runtime payload
// later stays with the examiners until someone decides otherwise here. Every field of a
// delivered runtime payload is either in its candidate struct or in candidateWithheld with the
// reason; TestCandidateFieldsDecided fails on a field with no decision.

// candidateExamState keeps the lifecycle and the exam's clock (a candidate page shows the time
// left for the exam); the node plan and the node's clock stay with examiners.
type candidateExamState struct {
	State              ExamState `json:"state"`
	Previous           ExamState `json:"previous,omitempty"`
	Reason             string    `json:"reason,omitempty"`
	TotalTimeBudgetSec int       `json:"totalTimeBudgetSec,omitempty"`
	ExamDeadlineAt     string    `json:"examDeadlineAt,omitempty"`
}

// candidateNodeEntered says which part of the exam began and how far along it is; nothing of
// how the part is run or judged.
type candidateNodeEntered struct {
	NodeID   string   `json:"nodeId"`
	Kind     string   `json:"kind"`
	Persona  string   `json:"persona,omitempty"`
	Progress Progress `json:"progress"`
}

type candidateTimeWarning struct {
	Scope        WarningScope `json:"scope"`
	NodeID       string       `json:"nodeId,omitempty"`
	RemainingSec int          `json:"remainingSec"`
}

// candidateCommandAck says whether the candidate's request was honoured; the detail (which
// names limits: "1 of 2", "maxClarifications 2 reached") stays with examiners.
type candidateCommandAck struct {
	Command  string `json:"command"`
	NodeID   string `json:"nodeId,omitempty"`
	Accepted bool   `json:"accepted"`
}

// candidateSpoken leaves out the source and the interception flag, which tell that a guardrail
// rewrote the examiner's line.
type candidateSpoken struct {
	NodeID   string  `json:"nodeId"`
	Text     string  `json:"text"`
	TTSSpeed float64 `json:"ttsSpeed,omitempty"`
	Part     int     `json:"part,omitempty"`
}

// candidateCompleted leaves out evidence counts and coverage.
type candidateCompleted struct {
	State        ExamState `json:"state"`
	Reason       string    `json:"reason,omitempty"`
	DurationMs   int64     `json:"durationMs"`
	NodesVisited []string  `json:"nodesVisited"`
}

// candidateWithheld names, for every field of a delivered runtime payload that the candidate
// does not get (event.field, by JSON name), why. A field in neither this list nor the
// candidate struct fails TestCandidateFieldsDecided.
var candidateWithheld = map[string]string{
	"exam_state.nodes":                   "the node plan: how many parts and their ids ahead of time",
	"exam_state.deadlineAt":              "the current node's deadline, which gives away its time budget",
	"exam_state.by":                      "who paused or resumed: staff identities",
	"node_entered.scenario":              "the model's scenario context, not what the candidate is told",
	"node_entered.evidenceTargets":       "the signals the node assesses",
	"node_entered.maxFollowUps":          "a node limit",
	"node_entered.timeBudgetSec":         "the node's time budget, a node limit",
	"node_entered.from":                  "the node left, with the reason below a trace of the decision",
	"node_entered.reason":                "the transition reason names the condition that fired",
	"node_entered.deadlineAt":            "the node's deadline, which gives away its time budget",
	"node_entered.requiredEvidenceCount": "a node limit",
	"node_entered.maxOffTopicRedirects":  "a node limit",
	"node_entered.maxClarifications":     "a limit",
	"node_entered.variant":               "which version of the question was drawn: candidates comparing notes would learn the variants exist and which one each got",
	"node_entered.variantDraw":           "how the variant was drawn (balanced across the cohort, pinned by a test)",
	"command_acknowledged.source":        "how the command was detected (examiner or safety net)",
	"command_acknowledged.detail":        "names limits (\"1 of 2\", \"maxClarifications 2 reached\") and settings",
	"spoken.source":                      "why the line was said: tells a guardrail or a fallback apart",
	"spoken.intercepted":                 "tells that a guardrail rewrote the examiner's line",
	"spoken.streamed":                    "the examiner call's timing; the candidate hears the same text",
	"spoken.settles":                     "the supervising examiner's instructions this line carried out",
	"exam_completed.evidence":            "accepted evidence by signal",
	"exam_completed.coverage":            "evidence coverage by node",
}

// candidateStructs maps each delivered event type to its candidate struct (the allow-list).
var candidateStructs = map[EventType]any{
	EventExamState:           candidateExamState{},
	EventNodeEntered:         candidateNodeEntered{},
	EventTimeWarning:         candidateTimeWarning{},
	EventCommandAcknowledged: candidateCommandAck{},
	EventSpoken:              candidateSpoken{},
	EventExamCompleted:       candidateCompleted{},
}

// CandidateFields lists, by JSON name, the payload fields the candidate receives of an event
// type (nil when the type is withheld), in the order they are encoded. Nested structs are
// given whole ("progress").
func CandidateFields(typ EventType) []string {
	v, ok := candidateStructs[typ]
	if !ok {
		return nil
	}
	return jsonFields(reflect.TypeOf(v))
}

// jsonFields lists the JSON names of a struct type's encoded fields.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// CandidateView returns the event as the candidate may see it, and false when the candidate
// must not see it at all: the candidate gets exam_state, node_entered, time_warning,
// command_acknowledged, spoken and exam_completed, reduced to the fields of the structs above
// (CandidateFields); never rubric levels, evidence, limits, the scenario context, observations,
// guardrails or transition conditions. An event whose payload does not decode is withheld.
func CandidateView(ev Event) (Event, bool) {
	view, err := candidatePayload(ev)
	if err != nil || view == nil {
		return Event{}, false
	}
	raw, err := json.Marshal(view)
	if err != nil {
		return Event{}, false
	}
	out := ev
	out.Payload = raw
	return out, true
}

func candidatePayload(ev Event) (any, error) {
	switch ev.Event {
	case EventExamState, EventNodeEntered, EventTimeWarning,
		EventCommandAcknowledged, EventSpoken, EventExamCompleted:
	default:
		return nil, nil
	}
	p, err := ev.Decode()
	if err != nil {
		return nil, err
	}
	switch p := p.(type) {
	case *ExamStatePayload:
		return candidateExamState{State: p.State, Previous: p.Previous, Reason: p.Reason,
			TotalTimeBudgetSec: p.TotalTimeBudgetSec, ExamDeadlineAt: p.ExamDeadlineAt}, nil
	case *NodeEnteredPayload:
		return candidateNodeEntered{NodeID: p.NodeID, Kind: p.Kind, Persona: p.Persona, Progress: p.Progress}, nil
	case *TimeWarningPayload:
		return candidateTimeWarning{Scope: p.Scope, NodeID: p.NodeID, RemainingSec: p.RemainingSec}, nil
	case *CommandAcknowledgedPayload:
		return candidateCommandAck{Command: p.Command, NodeID: p.NodeID, Accepted: p.Accepted}, nil
	case *SpokenPayload:
		return candidateSpoken{NodeID: p.NodeID, Text: p.Text, TTSSpeed: p.TTSSpeed, Part: p.Part}, nil
	case *ExamCompletedPayload:
		return candidateCompleted{State: p.State, Reason: p.Reason, DurationMs: p.DurationMs, NodesVisited: p.NodesVisited}, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrUnknownEvent, ev.Event)
}
