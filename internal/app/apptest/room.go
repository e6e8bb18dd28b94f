// Package apptest holds the LiveKit set-ups that the tests of internal/app and cmd/examtui
// share: the demo exam's bot in a real room (internal/lktest) and the participants that join it.
package apptest

import (
	"context"
	"testing"

	"github.com/examtui/examtui/audio/livekit"
	"github.com/examtui/examtui/internal/app"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/runtime"
)

// StartDemoBot opens the demo exam (offline examiner, no store, room input), joins it to srv's
// room as the exam bot and starts it; both close with the test.
func StartDemoBot(ctx context.Context, t testing.TB, srv *lktest.Server) (*app.Exam, *app.RoomBot) {
	t.Helper()
	x, err := app.Open(ctx, app.Options{SpecPath: "demo", Examiner: app.ExaminerOffline, NoStore: true, Input: runtime.SourceRoom})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	rb, err := x.JoinRoom(ctx, app.RoomOptions{Config: livekit.Config{URL: srv.URL, Token: srv.Token("examtui-bot", livekit.RoleBot)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rb.Close() })
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return x, rb
}

// Dial joins srv's room as identity with role; the client closes with the test.
func Dial(ctx context.Context, t testing.TB, srv *lktest.Server, identity string, role livekit.Role) *livekit.Client {
	t.Helper()
	c, err := livekit.Dial(ctx, srv.URL, srv.Token(identity, role))
	if err != nil {
		t.Fatalf("%s: %v", identity, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// DialBot is Dial, then waits for the exam bot to be in the room.
func DialBot(ctx context.Context, t testing.TB, srv *lktest.Server, identity string, role livekit.Role) *livekit.Client {
	t.Helper()
	c := Dial(ctx, t, srv, identity, role)
	if err := c.WaitBot(ctx); err != nil {
		t.Fatalf("%s waiting for the bot: %v", identity, err)
	}
	return c
}

// HasParticipant reports whether identity is in the room r (as r's participant sees it).
func HasParticipant(r *livekit.Room, identity string) bool {
	for _, p := range r.Participants() {
		if p.Identity == identity {
			return true
		}
	}
	return false
}
