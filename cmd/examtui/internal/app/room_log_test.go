package app_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// TestRoomLogNamesTheRoomOnce: a bot joined by token alone, as a worker's job joins, under a
// logger that names the room already (the worker's): its JSON log lines carry "room" once, never
// a second, empty one.
func TestRoomLogNamesTheRoomOnce(t *testing.T) {
	srv := lktest.Start(t)
	ctx := context.Background()
	var logs testutil.SyncBuffer
	log := slog.New(slog.NewJSONHandler(&logs, nil)).With("job", "AJ_test", "room", srv.Room)
	x := apptest.OpenExam(ctx, t, app.Options{DataDir: t.TempDir(), Input: runtime.SourceRoom, Logger: log})
	rb, err := x.JoinRoom(ctx, app.RoomOptions{Config: livekit.Config{URL: srv.URL, Token: srv.Token("examtui-bot", livekit.RoleBot)}})
	if err != nil {
		t.Fatal(err)
	}
	rb.Close()
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatal("the bot logged nothing")
	}
	for _, l := range lines {
		if n := strings.Count(l, `"room":`); n > 1 {
			t.Errorf("a log line names the room %d times: %s", n, l)
		}
	}
}
