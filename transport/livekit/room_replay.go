package livekit

// Replay sends a participant its share of every event again, from the first. Clients keep
// each seq once, so a replay is harmless; it recovers events a participant missed because
// they were sent before its data channel could receive them (a participant who joined in
// the same instant as the bot gets no second arrival).
func (r *Room) Replay(identity string) {
	if identity != "" {
		r.replayTo(identity, 1)
	}
}
