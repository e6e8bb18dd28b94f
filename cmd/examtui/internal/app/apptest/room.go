// Package apptest holds the LiveKit set-ups that the tests of cmd/examtui/internal/app and cmd/examtui
// share: the demo exam's bot in a real room (internal/lktest) and the participants that join it.
package apptest

import (
	"context"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// OpenExam opens the exam o describes: the demo exam with the offline examiner when o names
// no spec or examiner. It closes with the test.
func OpenExam(ctx context.Context, t testing.TB, o app.Options) *app.Exam {
	t.Helper()
	if o.SpecPath == "" {
		o.SpecPath = app.DemoSpec
	}
	if o.Examiner == "" {
		o.Examiner = app.ExaminerOffline
	}
	x, err := app.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// StartDemoBot opens the demo exam (offline examiner, no store, room input), joins it to srv's
// room as the exam bot and starts it; both close with the test.
func StartDemoBot(ctx context.Context, t testing.TB, srv *lktest.Server) (*app.Exam, *app.RoomBot) {
	t.Helper()
	x := OpenExam(ctx, t, app.Options{NoStore: true, Input: runtime.SourceRoom})
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
