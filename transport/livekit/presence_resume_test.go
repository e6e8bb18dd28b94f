package livekit_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/offline"
	"github.com/examtui/examtui/transport/livekit"
)

// TestResumedBotKnowsWhoIsInTheRoom restarts the exam bot of a real room: a new bot resumes the
// stored session while one candidate is still in the room and the other left during the
// downtime. The one still there is the same stay (no "rejoined"); the one who left is recorded
// as gone once the new bot has settled; when the last leaves, the exam pauses.
func TestResumedBotKnowsWhoIsInTheRoom(t *testing.T) {
	e, ctrl, rec := roomExam(t, "presence-resume")
	ctx := context.Background()
	stay := e.dial(t, "candidate-1", livekit.RoleCandidate)
	gone := e.dial(t, "candidate-2", livekit.RoleCandidate)
	e.waitAudience(t, "candidate-1", "candidate-2")
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	lines := func(r *runtime.Recorder) []string {
		var out []string
		for _, ev := range r.Events() {
			if s, ok := presenceLine(ev); ok {
				out = append(out, s)
			}
		}
		return out
	}
	testutil.Eventually(t, 15*time.Second, func() bool { return len(lines(rec)) == 2 }, "both candidates recorded as joined")

	// The bot goes away; one candidate leaves while no bot is there to see it.
	ctrl.Close()
	e.bot.Close()
	gone.Close()

	ex, err := offline.New()
	if err != nil {
		t.Fatal(err)
	}
	rec2 := &runtime.Recorder{}
	fan := runtime.NewFanout(rec2)
	ctrl2, err := runtime.NewController(compileExample(t), ex, runtime.WithSink(fan), runtime.WithResume(rec.Events()),
		runtime.WithInputSource(runtime.SourceRoom), runtime.WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctrl2.Close() })
	joinCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	room2, err := livekit.Join(joinCtx, livekit.Config{URL: e.srv.URL, Token: e.srv.Token("examtui-bot", livekit.RoleBot)},
		livekit.WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { room2.Close() })
	bot2, err := livekit.NewBot(room2, ctrl2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bot2.Close() })
	fan.Subscribe(bot2)
	if err := ctrl2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// The bot gives a candidate it cannot see 10 s to show up after it connects.
	want := []string{"candidate candidate-2 left (not in the room when the exam resumed)"}
	testutil.Eventually(t, 30*time.Second, func() bool { return len(lines(rec2)) >= len(want) }, "candidate-2 recorded as gone")
	if got := lines(rec2); !slices.Equal(got, want) {
		t.Fatalf("after the restart: %q, want %q", got, want)
	}
	if s := ctrl2.Snapshot(); s.State != runtime.StateInProgress {
		t.Fatalf("state %s with candidate-1 still in the room", s.State)
	}

	stay.Close()
	want = append(want, "candidate candidate-1 left (left the room)", "paused: candidate left")
	testutil.Eventually(t, 15*time.Second, func() bool { return len(lines(rec2)) >= len(want) }, "candidate-1 recorded as gone")
	if got := lines(rec2); !slices.Equal(got, want) {
		t.Fatalf("after the restart: %q, want %q", got, want)
	}
}
