package app

import (
	"context"
)

// RecordNoticeAck copies onto the exam's session the candidate's acknowledgement of the
// recording notice, given on the candidate page with a join code of room for identity
// (docs/records.md). A candidate who joined without the page (a LiveKit client of their own)
// has none, and the session says so by having none.
func (x *Exam) RecordNoticeAck(ctx context.Context, room, identity string) {
	if x.Store == nil {
		return
	}
	at, ok, err := x.Store.RoomNoticeAck(ctx, room, identity)
	if err == nil && ok {
		err = x.Store.SetNoticeAck(ctx, x.SessionID, at)
	}
	if err != nil {
		x.log.Warn("the recording notice's acknowledgement was not copied to the session", "err", err)
		return
	}
	x.log.Info("recording notice acknowledged", "session", x.SessionID, "recorded", ok)
}
