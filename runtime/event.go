package runtime

import (
	"encoding/json"
	"fmt"
	"time"
)

// EventType names an event in the stream (docs/architecture.md, "The event stream").
type EventType string

// Event types.
const (
	EventExamState           EventType = "exam_state"
	EventNodeEntered         EventType = "node_entered"
	EventNodeExit            EventType = "node_exit"
	EventTranscriptSegment   EventType = "transcript_segment"
	EventObservation         EventType = "observation"
	EventEvidenceUpdate      EventType = "evidence_update"
	EventFollowUpIssued      EventType = "follow_up_issued"
	EventCommandAcknowledged EventType = "command_acknowledged"
	EventTimeWarning         EventType = "time_warning"
	EventGuardrailTriggered  EventType = "guardrail_triggered"
	EventRecovery            EventType = "recovery_event"
	EventAdminInstruction    EventType = "admin_instruction"
	EventBeatFired           EventType = "beat_fired"
	EventSpoken              EventType = "spoken"
	EventSystemError         EventType = "system_error"
	EventExamCompleted       EventType = "exam_completed"
)

// eventTable is every event type with its payload's constructor: the one declaration that
// EventTypes and Decode both read, so a type cannot be listed and not decodable, or the other
// way round. Order is the docs' order.
var eventTable = []struct {
	typ     EventType
	payload func() Payload
}{
	{EventExamState, func() Payload { return &ExamStatePayload{} }},
	{EventNodeEntered, func() Payload { return &NodeEnteredPayload{} }},
	{EventNodeExit, func() Payload { return &NodeExitPayload{} }},
	{EventTranscriptSegment, func() Payload { return &TranscriptSegmentPayload{} }},
	{EventObservation, func() Payload { return &ObservationPayload{} }},
	{EventEvidenceUpdate, func() Payload { return &EvidenceUpdatePayload{} }},
	{EventFollowUpIssued, func() Payload { return &FollowUpIssuedPayload{} }},
	{EventCommandAcknowledged, func() Payload { return &CommandAcknowledgedPayload{} }},
	{EventTimeWarning, func() Payload { return &TimeWarningPayload{} }},
	{EventGuardrailTriggered, func() Payload { return &GuardrailTriggeredPayload{} }},
	{EventRecovery, func() Payload { return &RecoveryPayload{} }},
	{EventAdminInstruction, func() Payload { return &AdminInstructionPayload{} }},
	{EventBeatFired, func() Payload { return &BeatFiredPayload{} }},
	{EventSpoken, func() Payload { return &SpokenPayload{} }},
	{EventSystemError, func() Payload { return &SystemErrorPayload{} }},
	{EventExamCompleted, func() Payload { return &ExamCompletedPayload{} }},
	{EventSpecReload, func() Payload { return &SpecReloadPayload{} }},
	{EventCallUsage, func() Payload { return &CallUsagePayload{} }},
	{EventExaminerSwitched, func() Payload { return &ExaminerSwitchedPayload{} }},
	{EventCandidatePresence, func() Payload { return &CandidatePresencePayload{} }},
	{EventSpeechUsage, func() Payload { return &SpeechUsagePayload{} }},
	{EventContextSummary, func() Payload { return &ContextSummaryPayload{} }},
}

// EventTypes lists every event type, from eventTable.
var EventTypes = func() []EventType {
	out := make([]EventType, len(eventTable))
	for i, e := range eventTable {
		out[i] = e.typ
	}
	return out
}()

// newPayload returns an empty payload of type t, or nil for a type this runtime does not know.
func newPayload(t EventType) Payload {
	for _, e := range eventTable {
		if e.typ == t {
			return e.payload()
		}
	}
	return nil
}

func (t EventType) String() string { return string(t) }

// Event is the one envelope every event travels in: to the store, the console, the LiveKit data
// channel, exports and replays. Seq starts at 1 and increases by one per session with no gaps.
type Event struct {
	Event     EventType       `json:"event"`
	SessionID string          `json:"sessionId"`
	Seq       int64           `json:"seq"`
	Timestamp time.Time       `json:"timestamp"`
	Payload   json.RawMessage `json:"payload"`
}

// NewEvent builds an envelope around a typed payload.
func NewEvent(sessionID string, seq int64, ts time.Time, payload Payload) (Event, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return Event{}, fmt.Errorf("encode %s payload: %w", payload.EventType(), err)
	}
	return Event{Event: payload.EventType(), SessionID: sessionID, Seq: seq, Timestamp: ts.UTC(), Payload: raw}, nil
}

// Payload is implemented by every typed payload.
type Payload interface {
	EventType() EventType
}

// Decode returns the event's typed payload (a pointer to one of the *Payload structs).
func (e Event) Decode() (Payload, error) {
	p := newPayload(e.Event)
	if p == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownEvent, e.Event)
	}
	if err := json.Unmarshal(e.Payload, p); err != nil {
		return nil, fmt.Errorf("decode %s payload (seq %d): %w", e.Event, e.Seq, err)
	}
	return p, nil
}
