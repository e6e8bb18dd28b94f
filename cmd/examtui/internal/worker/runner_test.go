package worker

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/livekit/agent"
	"github.com/examtui/examtui/transport/voicepath"
)

// TestJobFailureIsIsolated: a job whose voice setup panics ends with a system_error and an
// interrupted session, reports the failure, and is not adopted by a takeover; the next job
// on the same runner runs; a job stopped by its context leaves its session resumable.
func TestJobFailureIsIsolated(t *testing.T) {
	srv := lktest.Start(t)
	ctx := context.Background()
	var calls atomic.Int32
	r, err := NewRunner(ctx, Config{DataDir: t.TempDir(), Examiner: "offline", Logger: testLog(t),
		Voice: func(string, *spec.ResolvedTurnTaking, *slog.Logger) (audio.Recognizer, audio.Synthesizer, []voicepath.Option, error) {
			if calls.Add(1) == 1 {
				panic("provider blew up")
			}
			return nil, nil, nil, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	assign := func(room string) agent.Assignment {
		return agent.Assignment{JobRequest: agent.JobRequest{ID: "AJ_" + room, Room: room, RoomSID: "RM_" + room,
			Metadata: `{"spec":"demo","candidate":"` + room + `"}`}, URL: srv.URL, Token: srv.RoomToken(room, DefaultBotIdentity, livekit.RoleBot)}
	}

	err = r.Run(ctx, assign("crash"))
	if err == nil || !strings.Contains(err.Error(), "provider blew up") {
		t.Fatalf("crashing job: err = %v", err)
	}
	id := SessionKey("crash", "RM_crash")
	sess, err := r.store.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Status() != sessions.StatusInterrupted {
		t.Errorf("crashed session is %s, want interrupted", sess.Status())
	}
	evs, err := r.store.LoadEvents(ctx, id)
	if err != nil || len(evs) == 0 {
		t.Fatalf("events: %v (%d)", err, len(evs))
	}
	last := evs[len(evs)-1]
	if p, _ := last.Decode(); last.Event != runtime.EventSystemError || p.(*runtime.SystemErrorPayload).Code != runtime.CodeWorkerJobFailed {
		t.Errorf("last event = %s %s", last.Event, last.Payload)
	}
	if orphan, why, err := r.orphaned(ctx, id); err != nil || orphan || !strings.Contains(why, "provider blew up") {
		t.Errorf("orphaned = %v %q %v; a failed job must not be adopted", orphan, why, err)
	}

	// The next job runs: its bot joins and waits for the candidate; stopping it leaves the
	// session resumable and unfailed.
	jctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(jctx, assign("next")) }()
	testutil.Eventually(t, 20*time.Second, func() bool { return len(r.Jobs()) == 1 }, "the next job to run")
	if j := r.Jobs()[0]; j.Room != "next" || j.Candidate != "next" || j.State != runtime.StateCreated {
		t.Errorf("job = %+v", j)
	}
	time.Sleep(300 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "resumable") {
		t.Errorf("stopped job: %v", err)
	}
	next := SessionKey("next", "RM_next")
	if orphan, why, err := r.orphaned(ctx, next); err != nil || !orphan || why != "" {
		t.Errorf("stopped session: orphan %v %q %v (want adoptable)", orphan, why, err)
	}
}

// TestJobRejections: bad metadata and unknown specs fail the job with the reason and open no
// session.
func TestJobRejections(t *testing.T) {
	ctx := context.Background()
	r, err := NewRunner(ctx, Config{DataDir: t.TempDir(), SpecsDir: t.TempDir(), Examiner: "offline", Logger: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cases := []struct {
		metadata string
		want     error
	}{
		{`{"spec":"nope"}`, ErrUnknownSpec},
		{`{"spec":"../../etc/passwd"}`, ErrBadMetadata},
		{`garbage`, ErrBadMetadata},
	}
	for _, tc := range cases {
		err := r.Run(ctx, agent.Assignment{JobRequest: agent.JobRequest{ID: "AJ_x", Room: "x", RoomSID: "RM_x", Metadata: tc.metadata},
			URL: "ws://127.0.0.1:1", Token: "t"})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.metadata, err, tc.want)
		}
	}
	list, err := r.store.List(ctx)
	if err != nil || len(list) != 0 {
		t.Errorf("rejected jobs left sessions: %d, %v", len(list), err)
	}
}

func testLog(t *testing.T) *slog.Logger { return testutil.Logger(t, slog.LevelInfo) }
