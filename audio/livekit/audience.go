package livekit

import (
	"encoding/json"
	"fmt"

	"github.com/examtui/examtui/runtime"
)

// The candidate's view is an allowlist: each delivered event type is re-encoded from a struct of
// its own that names the fields the candidate may see, so a field added to a runtime payload
// later stays with the examiners until someone decides otherwise here.

// candidateExamState keeps the lifecycle and the clocks; the node plan stays with examiners.
type candidateExamState struct {
	State              runtime.ExamState `json:"state"`
	Previous           runtime.ExamState `json:"previous,omitempty"`
	Reason             string            `json:"reason,omitempty"`
	TotalTimeBudgetSec int               `json:"totalTimeBudgetSec,omitempty"`
	DeadlineAt         string            `json:"deadlineAt,omitempty"`
	ExamDeadlineAt     string            `json:"examDeadlineAt,omitempty"`
}

// candidateNodeEntered leaves out evidence targets, the node's limits (follow-ups, evidence
// required, redirects, clarifications) and the transition reason (which names the condition
// that fired).
type candidateNodeEntered struct {
	NodeID        string           `json:"nodeId"`
	Kind          string           `json:"kind"`
	Persona       string           `json:"persona,omitempty"`
	Scenario      string           `json:"scenario,omitempty"`
	TimeBudgetSec int              `json:"timeBudgetSec,omitempty"`
	Progress      runtime.Progress `json:"progress"`
	DeadlineAt    string           `json:"deadlineAt,omitempty"`
}

type candidateTimeWarning struct {
	Scope        runtime.WarningScope `json:"scope"`
	NodeID       string               `json:"nodeId,omitempty"`
	RemainingSec int                  `json:"remainingSec"`
}

type candidateCommandAck struct {
	Command  string `json:"command"`
	NodeID   string `json:"nodeId,omitempty"`
	Accepted bool   `json:"accepted"`
	Detail   string `json:"detail,omitempty"`
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
	State        runtime.ExamState `json:"state"`
	Reason       string            `json:"reason,omitempty"`
	DurationMs   int64             `json:"durationMs"`
	NodesVisited []string          `json:"nodesVisited"`
}

// CandidateView returns the event as the candidate may see it, and false when the candidate
// must not see it at all: the candidate gets exam_state, node_entered (without evidence
// targets), time_warning, command_acknowledged, spoken and exam_completed, reduced to the fields
// above; never rubric levels, evidence, observations, guardrails or transition conditions. An
// event whose payload does not decode is withheld.
func CandidateView(ev runtime.Event) (runtime.Event, bool) {
	view, err := candidatePayload(ev)
	if err != nil || view == nil {
		return runtime.Event{}, false
	}
	raw, err := json.Marshal(view)
	if err != nil {
		return runtime.Event{}, false
	}
	out := ev
	out.Payload = raw
	return out, true
}

func candidatePayload(ev runtime.Event) (any, error) {
	switch ev.Event {
	case runtime.EventExamState, runtime.EventNodeEntered, runtime.EventTimeWarning,
		runtime.EventCommandAcknowledged, runtime.EventSpoken, runtime.EventExamCompleted:
	default:
		return nil, nil
	}
	p, err := ev.Decode()
	if err != nil {
		return nil, err
	}
	switch p := p.(type) {
	case *runtime.ExamStatePayload:
		return candidateExamState{State: p.State, Previous: p.Previous, Reason: p.Reason,
			TotalTimeBudgetSec: p.TotalTimeBudgetSec, DeadlineAt: p.DeadlineAt, ExamDeadlineAt: p.ExamDeadlineAt}, nil
	case *runtime.NodeEnteredPayload:
		return candidateNodeEntered{NodeID: p.NodeID, Kind: p.Kind, Persona: p.Persona, Scenario: p.Scenario,
			TimeBudgetSec: p.TimeBudgetSec, Progress: p.Progress, DeadlineAt: p.DeadlineAt}, nil
	case *runtime.TimeWarningPayload:
		return candidateTimeWarning{Scope: p.Scope, NodeID: p.NodeID, RemainingSec: p.RemainingSec}, nil
	case *runtime.CommandAcknowledgedPayload:
		return candidateCommandAck{Command: p.Command, NodeID: p.NodeID, Accepted: p.Accepted, Detail: p.Detail}, nil
	case *runtime.SpokenPayload:
		return candidateSpoken{NodeID: p.NodeID, Text: p.Text, TTSSpeed: p.TTSSpeed, Part: p.Part}, nil
	case *runtime.ExamCompletedPayload:
		return candidateCompleted{State: p.State, Reason: p.Reason, DurationMs: p.DurationMs, NodesVisited: p.NodesVisited}, nil
	}
	return nil, fmt.Errorf("%w: %s", runtime.ErrUnknownEvent, ev.Event)
}
