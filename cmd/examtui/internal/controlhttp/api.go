package controlhttp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
)

// CreateRequest starts a session. Both fields are optional.
type CreateRequest struct {
	Candidate string `json:"candidate,omitempty"`
	// Model names the bot's LLM; the session's examiner is recorded as "pipecat:MODEL".
	Model string `json:"model,omitempty"`
}

// TurnRequest is one candidate turn as the bot heard it, with its LLM's report_observation.
type TurnRequest struct {
	// Text is the candidate's final transcript; empty means the candidate was silent.
	Text string `json:"text"`
	// Confidence is the STT confidence 0..1. Absent: the text came without one (typed chat)
	// and counts as certain.
	Confidence *float64 `json:"confidence,omitempty"`
	// DurationMs is how long the candidate spoke (or was silent), when the bot knows it.
	DurationMs int64 `json:"durationMs,omitempty"`
	// TurnID names the turn so that a retry of it (the bot's request timed out, the answer was
	// lost) is recognised: the same id as the session's last turn gets that turn's answer again
	// and submits nothing. Optional; at most MaxTurnIDLen characters.
	TurnID string `json:"turnId,omitempty"`
	// Observation is the report_observation arguments exactly as the LLM sent them: a JSON
	// object, or a JSON string holding the raw arguments text (which may be malformed). Absent
	// or null: the model made no tool call.
	Observation json.RawMessage `json:"observation,omitempty"`
	// SystemErrors are the bot's own failures since its last call that got through (a call
	// to the controller that could not be made or was refused: the bot said the fallback line
	// instead). Each is recorded as a system_error before the turn.
	SystemErrors []BotError `json:"systemErrors,omitempty"`
}

// BotError is one failure the bot reports: code controller_unreachable or controller_error.
type BotError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// maxBotErrors and maxBotErrorRunes bound what one turn may report.
const (
	maxBotErrors     = 20
	maxBotErrorRunes = 500
)

// arguments are the examiner's raw arguments the observation carries (nil: no tool call).
func (t *TurnRequest) arguments() (json.RawMessage, error) {
	raw := bytes.TrimSpace(t.Observation)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	switch raw[0] {
	case '{':
		return raw, nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("observation: %w", err)
		}
		return json.RawMessage(s), nil
	}
	return nil, fmt.Errorf("observation must be an object, a string of raw arguments or null")
}

// Update is the controller's answer: what the candidate must hear and where the exam is.
type Update struct {
	SessionID string `json:"sessionId"`
	// Node is the node now current; the bot's flow moves to it.
	Node string `json:"node"`
	// Variant is the version of the node's question the controller drew (none for a node
	// without variants): the bot's model gets that variant's task_messages from the export.
	Variant string `json:"variant,omitempty"`
	// State is the exam's state (created, in_progress, paused, completed, …).
	State string `json:"state"`
	// Say are the lines the candidate must hear, in order: validated and filtered by the
	// controller, everything spoken since the previous answer (a turn's reply, a node's
	// introduction and question, a command's answer, a check-in the ticker spoke meanwhile).
	Say []Line `json:"say"`
	// Transitions are the node exits since the previous answer, in order (usually none or one).
	Transitions []Transition `json:"transitions"`
	// Ended is true once the exam is over: the bot says the lines and ends the conversation.
	Ended bool `json:"ended"`
}

// Line is one spoken line.
type Line struct {
	Text   string `json:"text"`
	Source string `json:"source"` // intro, prompt, examiner, fallback, command, …
	Node   string `json:"node"`
}

// Transition is one node exit.
type Transition struct {
	From   string `json:"from"`
	Reason string `json:"reason"`
	To     string `json:"to"` // empty when the exam ended there
}

// errorBody is every error's JSON.
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

type botError struct {
	code    runtime.ErrorCode
	message string
}

// botErrors validates the turn's systemErrors: only the bot's own codes, a bounded number,
// messages cut to maxBotErrorRunes and cleaned of control characters.
func (t *TurnRequest) botErrors() ([]botError, error) {
	if len(t.SystemErrors) > maxBotErrors {
		return nil, fmt.Errorf("systemErrors: %d (at most %d)", len(t.SystemErrors), maxBotErrors)
	}
	out := make([]botError, 0, len(t.SystemErrors))
	for i, e := range t.SystemErrors {
		code := runtime.ErrorCode(e.Code)
		if code != runtime.CodeControllerUnreachable && code != runtime.CodeControllerError {
			return nil, fmt.Errorf("systemErrors[%d]: code %q (want %s or %s)", i, e.Code, runtime.CodeControllerUnreachable, runtime.CodeControllerError)
		}
		msg := textsafe.Line(runtime.TruncateRunes(e.Message, maxBotErrorRunes))
		out = append(out, botError{code: code, message: "pipecat bot: " + msg})
	}
	return out, nil
}
