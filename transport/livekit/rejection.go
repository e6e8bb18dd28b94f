package livekit

import (
	"encoding/json"
	"strings"
)

// A worker that takes an exam's dispatch and then refuses it (an unknown spec, bad metadata)
// ends the job as failed, but LiveKit's dispatch listing does not show a job's end, so the
// refusal is also written on the room itself, as its metadata: `examtui dispatch` and the
// control room's waiting list read it there. The note names the job it is about, so that a
// later dispatch to the same room is not taken for refused.

// rejectionNote is the room metadata of a refused dispatch.
type rejectionNote struct {
	Rejected struct {
		Job    string `json:"job"`
		Reason string `json:"reason"`
	} `json:"examtuiRejected"`
}

// maxRejectionReason bounds the reason kept on the room.
const maxRejectionReason = 500

// EncodeRejection is the room metadata saying that job was refused, and why.
func EncodeRejection(job, reason string) string {
	var n rejectionNote
	n.Rejected.Job, n.Rejected.Reason = job, reason
	if len(n.Rejected.Reason) > maxRejectionReason {
		n.Rejected.Reason = strings.ToValidUTF8(n.Rejected.Reason[:maxRejectionReason], "") + "…"
	}
	b, _ := json.Marshal(n) // strings only: cannot fail
	return string(b)
}

// DecodeRejection reads a room's metadata: the job a worker refused and its reason, ok false
// when the metadata is no such note.
func DecodeRejection(metadata string) (job, reason string, ok bool) {
	if !strings.Contains(metadata, `"examtuiRejected"`) {
		return "", "", false
	}
	var n rejectionNote
	if json.Unmarshal([]byte(metadata), &n) != nil || n.Rejected.Job == "" {
		return "", "", false
	}
	return n.Rejected.Job, n.Rejected.Reason, true
}
