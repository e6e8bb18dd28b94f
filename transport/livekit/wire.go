package livekit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/examtui/examtui/runtime"
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

// WireVersion is the schema version every message on the data topics carries, as
// "schemaVersion" beside its other fields: the event envelope the bot sends and the messages of
// the input topics. A new version only adds fields, so readers stay forward compatible: they
// ignore fields they do not know and accept a newer version (its known fields mean what they
// meant); a message without the field is from a sender older than versions and reads as it
// did. A change that would alter what a field means needs a new topic, not a new version.
// docs/architecture.md ("The room wire") says the same for other tools.
const WireVersion = 1

// roomEvent is the event envelope as it travels on TopicEvents: the stored envelope's fields,
// unchanged, plus the wire's schema version.
type roomEvent struct {
	runtime.Event
	SchemaVersion int `json:"schemaVersion"`
}

// encodeRoomEvent is the one encoding of an event for the room.
func encodeRoomEvent(ev runtime.Event) ([]byte, error) {
	return json.Marshal(roomEvent{Event: ev, SchemaVersion: WireVersion})
}

// DecodeRoomEvent reads an event packet of TopicEvents: it returns the envelope and the
// sender's schema version (0 from a bot older than versions). A newer version is accepted
// (forward compatible, WireVersion); only a version that is not a version is refused.
func DecodeRoomEvent(data []byte) (runtime.Event, int, error) {
	var re roomEvent
	if err := json.Unmarshal(data, &re); err != nil {
		return runtime.Event{}, 0, fmt.Errorf("%w: %w", ErrInvalidMessage, err)
	}
	if re.SchemaVersion < 0 {
		return runtime.Event{}, 0, fmt.Errorf("%w: schemaVersion %d", ErrInvalidMessage, re.SchemaVersion)
	}
	return re.Event, re.SchemaVersion, nil
}

// Limits on inbound messages; a packet over them is rejected, not truncated, so nothing is
// silently lost.
const (
	MaxCandidateTextLen = runtime.MaxTurnTextRunes // the runtime's bound of a sent turn, declared once
	MaxAdminTextLen     = 2000
	maxInboundPacket    = 16 * 1024
	maxWireWord         = 32
)

// Message types on the input topics.
const (
	msgCandidateText    = "candidate_text"
	msgAdminInstruction = "admin_instruction"
	msgControl          = "control"
	// msgCandidateStop is the candidate's native interrupt: stop speaking now. What a stop
	// means for the exam is the runtime's to decide (the bot cuts the line; the controller
	// records it as a barge-in with what was heard).
	msgCandidateStop = "stop"
	// msgCandidateReady says the candidate's client can now receive: the bot sends it its
	// share of the exam's events again, all of them (the client keeps each seq once). Events
	// sent before the client's data channel was open (a slow join, a reloaded page on a busy
	// machine) are otherwise lost for that connection.
	msgCandidateReady = "ready"
	// msgReady is the same word on the examiner-commands topic: an examiner's client misses
	// what was sent before its data channel was open just as a candidate's does.
	msgReady = msgCandidateReady
)

// CandidateText is a typed answer received from the candidate.
type CandidateText struct {
	Text       string
	Confidence float64 // 0..1; 1 when the sender gave none
	// ID is the sender's id for the message, when it asks for a receipt (receipt.go): the bot
	// answers it on TopicReceipts and takes a typed answer with the same id once.
	ID       string
	Sender   string    // the server-asserted identity of the sender
	Received time.Time // when the packet reached the bot, for latency figures
	// Stop is a {"type":"stop"} message: the candidate asks the examiner to stop speaking.
	// Text is empty and Confidence 0.
	Stop bool
	// Ready is a {"type":"ready"} message: the candidate's client can receive events now and
	// asks for them again. The room answers it itself; it never reaches the exam.
	Ready bool
}

// CommandKind says which of the examiner's messages a command is.
type CommandKind int

// Command kinds.
const (
	CommandAdmin CommandKind = iota + 1
	CommandControl
	// CommandReady is an examiner's client saying it can receive: the room answers it with
	// every event again, as it answers a candidate's "ready"; it never reaches the exam.
	CommandReady
)

func (k CommandKind) String() string {
	switch k {
	case CommandAdmin:
		return msgAdminInstruction
	case CommandControl:
		return msgControl
	case CommandReady:
		return msgReady
	default:
		return "unknown"
	}
}

// ExaminerCommand is an admin instruction or a control received from an examiner.
type ExaminerCommand struct {
	Kind     CommandKind
	Mode     runtime.AdminMode     // CommandAdmin: immediate, queued or say
	Text     string                // CommandAdmin
	Action   runtime.ControlAction // CommandControl
	ID       string                // the sender's id for the message, when it asks for a receipt (receipt.go)
	Sender   string                // the server-asserted identity of the sender
	Received time.Time             // when the packet reached the bot
}

// wireMessage is the union of the input topics' JSON fields.
type wireMessage struct {
	// SchemaVersion is WireVersion when examtui sends; read, any version is accepted (0:
	// a sender older than versions), a negative one is refused.
	SchemaVersion int      `json:"schemaVersion"`
	Type          string   `json:"type"`
	Text          *string  `json:"text,omitempty"`
	Confidence    *float64 `json:"confidence,omitempty"`
	Mode          string   `json:"mode,omitempty"`
	Action        string   `json:"action,omitempty"`
	ID            string   `json:"id,omitempty"`
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
	if m.SchemaVersion < 0 {
		return m, fmt.Errorf("%w: schemaVersion %d", ErrInvalidMessage, m.SchemaVersion)
	}
	if err := checkMessageID(m.ID); err != nil {
		return m, err
	}
	// type, mode and action are words from a short list, and errors quote them to examiners:
	// a long one is refused by its length, never quoted (it could carry a page of fake notice).
	for _, f := range []struct{ name, v string }{{"type", m.Type}, {"mode", m.Mode}, {"action", m.Action}} {
		if n := utf8.RuneCountInString(f.v); n > maxWireWord {
			return m, fmt.Errorf("%w: %s has %d characters (limit %d)", ErrInvalidMessage, f.name, n, maxWireWord)
		}
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
	case !runtime.Printable(t):
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
	switch m.Type {
	case msgCandidateStop:
		return CandidateText{Stop: true}, nil
	case msgCandidateReady:
		return CandidateText{Ready: true, ID: m.ID}, nil
	case msgCandidateText:
	default:
		return CandidateText{}, fmt.Errorf("%w: type %q on %s (want %s, %s or %s)", ErrInvalidMessage, m.Type, TopicCandidateInput, msgCandidateText, msgCandidateStop, msgCandidateReady)
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
	return CandidateText{Text: text, Confidence: conf, ID: m.ID}, nil
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
		mode, err := runtime.ParseInstructionMode(m.Mode)
		if err != nil {
			return ExaminerCommand{}, fmt.Errorf("%w: %w", ErrInvalidMessage, err)
		}
		text, err := checkText("text", m.Text, MaxAdminTextLen)
		if err != nil {
			return ExaminerCommand{}, err
		}
		return ExaminerCommand{Kind: CommandAdmin, Mode: mode, Text: text, ID: m.ID}, nil
	case msgControl:
		action, err := runtime.ParseControlAction(m.Action)
		if err != nil {
			return ExaminerCommand{}, fmt.Errorf("%w: %w", ErrInvalidMessage, err)
		}
		return ExaminerCommand{Kind: CommandControl, Action: action, ID: m.ID}, nil
	case msgReady:
		return ExaminerCommand{Kind: CommandReady, ID: m.ID}, nil
	}
	return ExaminerCommand{}, fmt.Errorf("%w: type %q on %s (want %s, %s or %s)", ErrInvalidMessage, m.Type, TopicExaminerCommands, msgAdminInstruction, msgControl, msgReady)
}

// EncodeCandidateText builds a candidate-input packet.
func EncodeCandidateText(text string, confidence float64) ([]byte, error) {
	return encodeCandidateText("", text, confidence)
}

func encodeCandidateText(id, text string, confidence float64) ([]byte, error) {
	return encodeInput(wireMessage{Type: msgCandidateText, Text: &text, Confidence: &confidence, ID: id})
}

// EncodeCandidateStop builds a candidate-input packet asking the examiner to stop speaking.
func EncodeCandidateStop() ([]byte, error) {
	return json.Marshal(wireMessage{Type: msgCandidateStop})
}

// EncodeCandidateReady builds a candidate-input packet saying the client can receive events.
func EncodeCandidateReady() ([]byte, error) {
	return json.Marshal(wireMessage{Type: msgCandidateReady})
}

// EncodeExaminerReady builds an examiner-commands packet saying the client can receive events.
func EncodeExaminerReady() ([]byte, error) {
	return json.Marshal(wireMessage{Type: msgReady})
}

// EncodeAdminInstruction builds an examiner-commands packet carrying an admin instruction.
func EncodeAdminInstruction(mode runtime.AdminMode, text string) ([]byte, error) {
	return encodeAdminInstruction("", mode, text)
}

func encodeAdminInstruction(id string, mode runtime.AdminMode, text string) ([]byte, error) {
	if !mode.Instruction() {
		return nil, fmt.Errorf("%w: admin mode %q (want immediate, queued or say)", ErrInvalidMessage, mode)
	}
	return encodeInput(wireMessage{Type: msgAdminInstruction, Mode: mode.String(), Text: &text, ID: id})
}

// EncodeControl builds an examiner-commands packet carrying a control action.
func EncodeControl(action runtime.ControlAction) ([]byte, error) {
	return encodeControl("", action)
}

func encodeControl(id string, action runtime.ControlAction) ([]byte, error) {
	if !action.Valid() {
		return nil, fmt.Errorf("%w: control action %v", ErrInvalidMessage, action)
	}
	return encodeInput(wireMessage{Type: msgControl, Action: action.String(), ID: id})
}

// encodeInput is the one encoding of an input topic's message that carries a version.
func encodeInput(m wireMessage) ([]byte, error) {
	if err := checkMessageID(m.ID); err != nil {
		return nil, err
	}
	m.SchemaVersion = WireVersion
	return json.Marshal(m)
}
