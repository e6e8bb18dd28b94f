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

// EventTypes lists every event type.
var EventTypes = []EventType{
	EventExamState, EventNodeEntered, EventNodeExit, EventTranscriptSegment, EventObservation,
	EventEvidenceUpdate, EventFollowUpIssued, EventCommandAcknowledged, EventTimeWarning,
	EventGuardrailTriggered, EventRecovery, EventAdminInstruction, EventBeatFired, EventSpoken,
	EventSystemError, EventExamCompleted, EventSpecReload,
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
	var p Payload
	switch e.Event {
	case EventExamState:
		p = &ExamStatePayload{}
	case EventNodeEntered:
		p = &NodeEnteredPayload{}
	case EventNodeExit:
		p = &NodeExitPayload{}
	case EventTranscriptSegment:
		p = &TranscriptSegmentPayload{}
	case EventObservation:
		p = &ObservationPayload{}
	case EventEvidenceUpdate:
		p = &EvidenceUpdatePayload{}
	case EventFollowUpIssued:
		p = &FollowUpIssuedPayload{}
	case EventCommandAcknowledged:
		p = &CommandAcknowledgedPayload{}
	case EventTimeWarning:
		p = &TimeWarningPayload{}
	case EventGuardrailTriggered:
		p = &GuardrailTriggeredPayload{}
	case EventRecovery:
		p = &RecoveryPayload{}
	case EventAdminInstruction:
		p = &AdminInstructionPayload{}
	case EventBeatFired:
		p = &BeatFiredPayload{}
	case EventSpoken:
		p = &SpokenPayload{}
	case EventSystemError:
		p = &SystemErrorPayload{}
	case EventExamCompleted:
		p = &ExamCompletedPayload{}
	case EventExaminerSwitched:
		p = &ExaminerSwitchedPayload{}
	case EventSpecReload:
		p = &SpecReloadPayload{}
	case EventCandidatePresence:
		p = &CandidatePresencePayload{}
	case EventSpeechUsage:
		p = &SpeechUsagePayload{}
	case EventCallUsage:
		p = &CallUsagePayload{}
	case EventContextSummary:
		p = &ContextSummaryPayload{}
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnknownEvent, e.Event)
	}
	if err := json.Unmarshal(e.Payload, p); err != nil {
		return nil, fmt.Errorf("decode %s payload (seq %d): %w", e.Event, e.Seq, err)
	}
	return p, nil
}
