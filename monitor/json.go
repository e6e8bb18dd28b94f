package monitor

import (
	"encoding/json"
	"time"
)

// alertJSON is an alert's line in examtui monitor --json.
type alertJSON struct {
	Kind      string    `json:"kind"`
	SessionID string    `json:"sessionId"`
	Candidate string    `json:"candidate,omitempty"`
	Exam      string    `json:"exam,omitempty"`
	NodeID    string    `json:"nodeId,omitempty"`
	At        time.Time `json:"at"`
	Seq       int64     `json:"seq,omitempty"`
	Room      string    `json:"room,omitempty"`
	Detail    string    `json:"detail,omitempty"`
	Meaning   string    `json:"meaning"`
}

// MarshalJSON writes the alert as a paging system reads it: its kind by name and what it means.
func (a Alert) MarshalJSON() ([]byte, error) {
	return json.Marshal(alertJSON{Kind: a.Kind.String(), SessionID: a.SessionID, Candidate: a.Candidate, Exam: a.Title,
		NodeID: a.NodeID, At: a.At.UTC(), Seq: a.Seq, Room: a.Room, Detail: a.Detail, Meaning: a.Kind.Explain()})
}
