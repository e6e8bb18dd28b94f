package runtime

import (
	"fmt"
	"time"
)

// EventCandidatePresence records the candidate joining, leaving or rejoining the exam's room, as
// the room server vouched for it. It goes to the examiners and the store, never to the candidate.
const EventCandidatePresence EventType = "candidate_presence"

// PresenceStatus is what a candidate_presence event reports.
type PresenceStatus string

// Presence statuses.
const (
	// PresenceJoined: a candidate is in the room for the first time in the session.
	PresenceJoined PresenceStatus = "joined"
	// PresenceLeft: a candidate left the room, or its connection was lost.
	PresenceLeft PresenceStatus = "left"
	// PresenceRejoined: a candidate is back after a leave (or after the exam bot restarted).
	PresenceRejoined PresenceStatus = "rejoined"
)

func (s PresenceStatus) String() string { return string(s) }

// CandidatePresencePayload is one change of who is in the room as the candidate.
type CandidatePresencePayload struct {
	Status PresenceStatus `json:"status"`
	// Identity is the candidate's participant identity in the room.
	Identity string `json:"identity"`
	// Reason says why a candidate left, as the room server reported it ("left the room",
	// "connection lost", ...).
	Reason string `json:"reason,omitempty"`
	NodeID string `json:"nodeId,omitempty"`
	// AwayMs is, on rejoining, how long no candidate had been in the room.
	AwayMs int64 `json:"awayMs,omitempty"`
	// Present is how many candidates are in the room after the change.
	Present int `json:"present"`
}

// EventType implements Payload.
func (*CandidatePresencePayload) EventType() EventType { return EventCandidatePresence }

// Summary is the change in a few words, for consoles and printers: "candidate cand-1 left
// (connection lost)", "candidate cand-1 rejoined after 42s". Not cleaned: callers pass it through
// internal/textsafe like any text from the stream.
func (p *CandidatePresencePayload) Summary() string {
	s := fmt.Sprintf("candidate %s %s", p.Identity, p.Status)
	if p.Status == PresenceLeft && p.Reason != "" {
		s += " (" + p.Reason + ")"
	}
	if p.Status == PresenceRejoined && p.AwayMs > 0 {
		s += " after " + (time.Duration(p.AwayMs) * time.Millisecond).Round(time.Second).String()
	}
	return s
}

// ActorKind says who acted on the exam.
type ActorKind string

// Actor kinds.
const (
	// ActorExaminer: a human examiner (the console, `examtui watch`, a room command).
	ActorExaminer ActorKind = "examiner"
	// ActorCandidate: the candidate (a "pause" command, answering while paused).
	ActorCandidate ActorKind = "candidate"
	// ActorSystem: the runtime itself, for the reason it gives (the candidate left the room...).
	ActorSystem ActorKind = "system"
)

func (k ActorKind) String() string { return string(k) }

// Actor is who paused or resumed the exam: an examiner by identity, the candidate, or the system
// with its reason.
type Actor struct {
	Kind     ActorKind `json:"kind"`
	Identity string    `json:"identity,omitempty"` // the examiner's identity
	Reason   string    `json:"reason,omitempty"`   // the system's reason
}

// String names the actor: the examiner's identity, "candidate", or "system".
func (a Actor) String() string {
	switch {
	case a.Kind == ActorExaminer && a.Identity != "":
		return a.Identity
	case a.Kind == "":
		return "unknown"
	}
	return string(a.Kind)
}

// Reasons the system gives for pausing and resuming (Actor.Reason) when the candidate leaves
// the room and comes back.
const (
	ReasonCandidateLeft     = "candidate left"
	ReasonCandidateRejoined = "candidate rejoined"
)

// PauseSummary says who paused or resumed the exam, for consoles and printers: "paused by
// examiner-ana", "paused by the candidate", "paused: candidate left", "resumed by examiner-ana".
// It is "" for other state changes, and falls back to the reason for sessions recorded before
// exam_state carried By.
func (p *ExamStatePayload) PauseSummary() string {
	verb := ""
	switch {
	case p.State == StatePaused:
		verb = "paused"
	case p.State == StateInProgress && p.Previous == StatePaused:
		verb = "resumed"
	default:
		return ""
	}
	if p.By == nil {
		if p.Reason != "" {
			return verb + " (" + p.Reason + ")"
		}
		return verb
	}
	switch p.By.Kind {
	case ActorSystem:
		if p.By.Reason != "" {
			return verb + ": " + p.By.Reason
		}
		return verb + " by the system"
	case ActorCandidate:
		return verb + " by the candidate"
	}
	return verb + " by " + p.By.String()
}
