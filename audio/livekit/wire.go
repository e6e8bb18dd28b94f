package livekit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Data topics (docs/architecture.md, "The room wire"). Every packet is reliable and carries one
// JSON message.
const (
	// TopicEvents carries one runtime event envelope per packet, bot → room.
	TopicEvents = "exam-runtime-events"
	// TopicCandidateInput carries typed answers, candidate → bot.
	TopicCandidateInput = "exam-candidate-input"
	// TopicExaminerCommands carries admin instructions and controls, examiner → bot.
	TopicExaminerCommands = "exam-examiner-commands"
)

// Limits on inbound messages; a packet over them is rejected, not truncated, so nothing is
// silently lost.
const (
	MaxCandidateTextLen = 4000
	MaxAdminTextLen     = 2000
	maxInboundPacket    = 16 * 1024
)

// Message types on the input topics.
const (
	msgCandidateText    = "candidate_text"
	msgAdminInstruction = "admin_instruction"
	msgControl          = "control"
)

// CandidateText is a typed answer received from the candidate.
type CandidateText struct {
	Text       string
	Confidence float64   // 0..1; 1 when the sender gave none
	Sender     string    // the server-asserted identity of the sender
	Received   time.Time // when the packet reached the bot, for latency figures
}

// AdminMode is how an examiner's instruction is applied (docs/exam-format.md).
type AdminMode int

// Admin modes.
const (
	AdminImmediate AdminMode = iota + 1
	AdminQueued
)

func (m AdminMode) String() string {
	switch m {
	case AdminImmediate:
		return "immediate"
	case AdminQueued:
		return "queued"
	default:
		return "unknown"
	}
}

// ParseAdminMode parses an admin mode name.
func ParseAdminMode(s string) (AdminMode, error) {
	switch s {
	case "immediate":
		return AdminImmediate, nil
	case "queued":
		return AdminQueued, nil
	}
	return 0, fmt.Errorf("%w: admin mode %q (want immediate or queued)", ErrInvalidMessage, s)
}

// ControlAction is an examiner's control of the exam's flow.
type ControlAction int

// Control actions.
const (
	ControlPause ControlAction = iota + 1
	ControlResume
	ControlSkip
	ControlAdvance
	ControlEnd
	ControlPromote // run the oldest queued instruction now, as an immediate one
)

// ControlActions lists every control action.
var ControlActions = []ControlAction{ControlPause, ControlResume, ControlSkip, ControlAdvance, ControlEnd, ControlPromote}

func (a ControlAction) String() string {
	switch a {
	case ControlPause:
		return "pause"
	case ControlResume:
		return "resume"
	case ControlSkip:
		return "skip"
	case ControlAdvance:
		return "advance"
	case ControlEnd:
		return "end"
	case ControlPromote:
		return "promote"
	default:
		return "unknown"
	}
}

// ParseControlAction parses a control action name.
func ParseControlAction(s string) (ControlAction, error) {
	for _, a := range ControlActions {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("%w: control action %q (want pause, resume, skip, advance, end or promote)", ErrInvalidMessage, s)
}

// CommandKind says which of the examiner's messages a command is.
type CommandKind int

// Command kinds.
const (
	CommandAdmin CommandKind = iota + 1
	CommandControl
)

func (k CommandKind) String() string {
	switch k {
	case CommandAdmin:
		return msgAdminInstruction
	case CommandControl:
		return msgControl
	default:
		return "unknown"
	}
}

// ExaminerCommand is an admin instruction or a control received from an examiner.
type ExaminerCommand struct {
	Kind     CommandKind
	Mode     AdminMode     // CommandAdmin
	Text     string        // CommandAdmin
	Action   ControlAction // CommandControl
	Sender   string        // the server-asserted identity of the sender
	Received time.Time     // when the packet reached the bot
}

// wireMessage is the union of the input topics' JSON fields.
type wireMessage struct {
	Type       string   `json:"type"`
	Text       *string  `json:"text,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
	Mode       string   `json:"mode,omitempty"`
	Action     string   `json:"action,omitempty"`
}

func decodeWire(data []byte) (wireMessage, error) {
	var m wireMessage
	if len(data) > maxInboundPacket {
		return m, fmt.Errorf("%w: %d bytes (limit %d)", ErrInvalidMessage, len(data), maxInboundPacket)
	}
	if !utf8.Valid(data) {
		return m, fmt.Errorf("%w: not UTF-8", ErrInvalidMessage)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("%w: %w", ErrInvalidMessage, err)
	}
	if dec.More() {
		return m, fmt.Errorf("%w: more than one JSON value in the packet", ErrInvalidMessage)
	}
	return m, nil
}

func checkText(field string, p *string, limit int) (string, error) {
	if p == nil {
		return "", fmt.Errorf("%w: %s is required", ErrInvalidMessage, field)
	}
	t := strings.TrimSpace(*p)
	switch {
	case !utf8.ValidString(t):
		return "", fmt.Errorf("%w: %s is not UTF-8", ErrInvalidMessage, field)
	case t == "":
		return "", fmt.Errorf("%w: %s is empty", ErrInvalidMessage, field)
	case utf8.RuneCountInString(t) > limit:
		return "", fmt.Errorf("%w: %s has %d characters (limit %d)", ErrInvalidMessage, field, utf8.RuneCountInString(t), limit)
	}
	return t, nil
}

// ParseCandidateInput parses a packet of the candidate-input topic. Sender is filled in by the
// caller from the server-asserted identity.
func ParseCandidateInput(data []byte) (CandidateText, error) {
	m, err := decodeWire(data)
	if err != nil {
		return CandidateText{}, err
	}
	if m.Type != msgCandidateText {
		return CandidateText{}, fmt.Errorf("%w: type %q on %s (want %s)", ErrInvalidMessage, m.Type, TopicCandidateInput, msgCandidateText)
	}
	text, err := checkText("text", m.Text, MaxCandidateTextLen)
	if err != nil {
		return CandidateText{}, err
	}
	conf := 1.0
	if m.Confidence != nil {
		conf = *m.Confidence
		if !(conf >= 0 && conf <= 1) { // also rejects NaN
			return CandidateText{}, fmt.Errorf("%w: confidence %v outside 0..1", ErrInvalidMessage, conf)
		}
	}
	return CandidateText{Text: text, Confidence: conf}, nil
}

// ParseExaminerCommand parses a packet of the examiner-commands topic. Sender is filled in by
// the caller from the server-asserted identity.
func ParseExaminerCommand(data []byte) (ExaminerCommand, error) {
	m, err := decodeWire(data)
	if err != nil {
		return ExaminerCommand{}, err
	}
	switch m.Type {
	case msgAdminInstruction:
		mode, err := ParseAdminMode(m.Mode)
		if err != nil {
			return ExaminerCommand{}, err
		}
		text, err := checkText("text", m.Text, MaxAdminTextLen)
		if err != nil {
			return ExaminerCommand{}, err
		}
		return ExaminerCommand{Kind: CommandAdmin, Mode: mode, Text: text}, nil
	case msgControl:
		action, err := ParseControlAction(m.Action)
		if err != nil {
			return ExaminerCommand{}, err
		}
		return ExaminerCommand{Kind: CommandControl, Action: action}, nil
	}
	return ExaminerCommand{}, fmt.Errorf("%w: type %q on %s (want %s or %s)", ErrInvalidMessage, m.Type, TopicExaminerCommands, msgAdminInstruction, msgControl)
}

// EncodeCandidateText builds a candidate-input packet.
func EncodeCandidateText(text string, confidence float64) ([]byte, error) {
	return json.Marshal(wireMessage{Type: msgCandidateText, Text: &text, Confidence: &confidence})
}

// EncodeAdminInstruction builds an examiner-commands packet carrying an admin instruction.
func EncodeAdminInstruction(mode AdminMode, text string) ([]byte, error) {
	return json.Marshal(wireMessage{Type: msgAdminInstruction, Mode: mode.String(), Text: &text})
}

// EncodeControl builds an examiner-commands packet carrying a control action.
func EncodeControl(action ControlAction) ([]byte, error) {
	return json.Marshal(wireMessage{Type: msgControl, Action: action.String()})
}
