package worker

import (
	"crypto/sha256"
	"encoding/hex"
)

// SessionKey is the session id of the exam in one room: every job for the same room (the
// dispatch's, and a re-dispatch or takeover after a worker died) finds the same session, and
// resumes it instead of starting over. The room's sid is part of it, so a room name used
// again another day (a new room, a new sid) gets a new exam.
func SessionKey(room, roomSID string) string {
	h := sha256.Sum256([]byte(room + "\x00" + roomSID))
	return "lk-" + hex.EncodeToString(h[:8])
}
