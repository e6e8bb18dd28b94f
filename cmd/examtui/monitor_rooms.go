package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/transport/livekit"
)

// newRoomWatcher is the control room's room watcher (app.RoomWatcher), or nil when LiveKit is
// not configured (no URL, key and secret). agentName is the workers' (examtui dispatch's
// --agent-name), whose dispatches not started it reports.
func newRoomWatcher(log *slog.Logger, agentName string) *app.RoomWatcher {
	var c livekitCreds
	c.resolve()
	if c.url == "" || c.key == "" || c.secret == "" {
		return nil
	}
	// Each control room joins under its own identity: LiveKit drops a participant when another
	// joins with the same one, and one examiner may well run two monitors.
	var b [3]byte
	_, _ = rand.Read(b[:])
	identity := "monitor-" + defaultExaminerIdentity() + "-" + hex.EncodeToString(b[:])
	w, err := app.NewRoomWatcher(app.RoomWatchConfig{
		Rooms:      lksdk.NewRoomServiceClient(c.url, c.key, c.secret),
		Dispatches: lksdk.NewAgentDispatchServiceClient(httpURL(c.url), c.key, c.secret),
		AgentName:  agentName,
		Dial: func(ctx context.Context, room string) (*livekit.Client, error) {
			return dialWatch(ctx, watchOptions{creds: c, room: room, identity: identity}, log)
		},
		Log: log,
	})
	if err != nil {
		log.Error("monitor: room watcher", "err", err) // cannot happen: both are given
		return nil
	}
	return w
}
