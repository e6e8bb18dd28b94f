package app_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// candidateView lists the event types a candidate may receive.
var candidateView = map[runtime.EventType]bool{
	runtime.EventExamState: true, runtime.EventNodeEntered: true, runtime.EventTimeWarning: true,
	runtime.EventCommandAcknowledged: true, runtime.EventSpoken: true, runtime.EventExamCompleted: true,
}

// listener keeps every event a participant receives.
type listener struct {
	mu  sync.Mutex
	evs []runtime.Event
}

func listen(t *testing.T, c *livekit.Client) *listener {
	l := &listener{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-c.Events():
				l.mu.Lock()
				l.evs = append(l.evs, ev)
				l.mu.Unlock()
			}
		}
	}()
	return l
}

func (l *listener) events() []runtime.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.evs)
}

func (l *listener) seqs() map[int64]bool {
	s := map[int64]bool{}
	for _, ev := range l.events() {
		s[ev.Seq] = true
	}
	return s
}

// dial is apptest.Dial with 20 s to connect.
func dial(t *testing.T, srv *lktest.Server, identity string, role livekit.Role) *livekit.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return apptest.Dial(ctx, t, srv, identity, role)
}

// answer sends a typed answer; the client sends it again until the bot confirms it, while the
// bot is not (yet, or again) in the room.
func answer(t *testing.T, c *livekit.Client, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	if err := c.SendCandidateText(ctx, text, 1); err != nil {
		t.Fatalf("send %q: %v", text, err)
	}
}

// TestRoomExamSurvivesRestartAndRejoin runs the demo exam through a real room with typed
// answers. The bot starts before anyone is there; the candidate arrives late and gets the
// history; the server is restarted mid-exam; the candidate leaves and rejoins; an examiner
// arrives after the end. The exam completes exactly as the local rehearsal does, nothing is
// lost from anyone's view, and the candidate never receives an assessment event.
func TestRoomExamSurvivesRestartAndRejoin(t *testing.T) {
	srv := lktest.Start(t)
	ctx := context.Background()
	x := apptest.OpenExam(ctx, t, app.Options{DataDir: t.TempDir(), Input: runtime.SourceRoom, Logger: testLog(t)})
	rb, err := x.JoinRoom(ctx, app.RoomOptions{
		Config:      livekit.Config{URL: srv.URL, Token: srv.Token("examtui-bot", livekit.RoleBot)},
		RoomOptions: []livekit.Option{livekit.WithRejoinBackoff(100*time.Millisecond, time.Second)},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rb.Close() })
	// The bot starts the exam before the candidate arrives.
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	script := apptest.Rehearsal(t)
	lines := script.Said()
	turns := func() int { return x.Controller.Snapshot().Turn }

	first := dial(t, srv, "candidate-1", livekit.RoleCandidate)
	firstEvents := listen(t, first)
	testutil.Eventually(t, 15*time.Second, func() bool {
		return firstEvents.seqs()[1] // exam_state created→…, replayed from the store
	}, "the late candidate to receive the opening")
	for i, line := range lines[:2] {
		answer(t, first, line)
		testutil.Eventually(t, 15*time.Second, func() bool { return turns() == i+1 }, "turn "+line)
	}

	srv.Restart()
	answer(t, first, lines[2])
	testutil.Eventually(t, 45*time.Second, func() bool { return turns() == 3 }, "a turn after the server restart")

	first.Close()
	testutil.Eventually(t, 20*time.Second, func() bool { return rb.Room.Candidate() == "" }, "the bot to see the candidate leave")
	again := dial(t, srv, "candidate-1", livekit.RoleCandidate)
	againEvents := listen(t, again)
	for i, line := range lines[3:] {
		answer(t, again, line)
		testutil.Eventually(t, 15*time.Second, func() bool { return turns() == 4+i }, "turn "+line)
	}
	testutil.Eventually(t, 10*time.Second, func() bool {
		return x.Controller.Snapshot().State == runtime.StateCompleted
	}, "the exam to complete")
	snap := x.Controller.Snapshot()
	want := []string{"welcome", "scenario-hotel-breakfast", "scenario-staff-rota", "wrapup"}
	if !slices.Equal(snap.Visited, want) {
		t.Errorf("visited %v, want %v", snap.Visited, want)
	}

	// An examiner who arrives after the end gets the whole journal, seq 1..n without a gap.
	exr := dial(t, srv, "examiner-1", livekit.RoleExaminer)
	exEvents := listen(t, exr)
	testutil.Eventually(t, 20*time.Second, func() bool { return len(exEvents.seqs()) >= int(snap.Seq) }, "the examiner's replay")
	for s := int64(1); s <= snap.Seq; s++ {
		if !exEvents.seqs()[s] {
			t.Fatalf("examiner is missing seq %d of %d", s, snap.Seq)
		}
	}

	// The rejoined candidate has its whole view, replayed from the store: every candidate event
	// of the journal, and nothing else.
	stored, err := x.Store.LoadEvents(ctx, x.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, func() bool {
		got := againEvents.seqs()
		for _, ev := range stored {
			if candidateView[ev.Event] && !got[ev.Seq] {
				return false
			}
		}
		return true
	}, "the rejoined candidate's view")
	for _, l := range []*listener{firstEvents, againEvents} {
		for _, ev := range l.events() {
			if !candidateView[ev.Event] {
				t.Errorf("candidate received %s #%d", ev.Event, ev.Seq)
			}
			for _, word := range []string{"evidenceTargets", "rubricLevel", "coverage", "evidence_sufficient", "intercepted"} {
				if strings.Contains(string(ev.Payload), word) {
					t.Errorf("candidate's %s #%d contains %q", ev.Event, ev.Seq, word)
				}
			}
		}
	}
	if st := rb.Room.Stats(); st.Replays < 3 {
		t.Errorf("replays = %d, want at least the late candidate, the rejoin and the examiner", st.Replays)
	}
}

// TestRoomExaminerControlsAndRefusals checks that commands act only from an examiner token,
// through the same Backend the watch console uses.
func TestRoomExaminerControlsAndRefusals(t *testing.T) {
	srv := lktest.Start(t)
	ctx := context.Background()
	x := apptest.OpenExam(ctx, t, app.Options{NoStore: true, Input: runtime.SourceRoom})
	rb, err := x.JoinRoom(ctx, app.RoomOptions{Config: livekit.Config{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.Secret,
		Room: srv.Room, Identity: "examtui-bot"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rb.Close() })
	cand := dial(t, srv, "candidate-1", livekit.RoleCandidate)
	exr := dial(t, srv, "examiner-1", livekit.RoleExaminer)
	exEvents := listen(t, exr)
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := rb.WaitCandidate(wctx); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() bool { return apptest.HasParticipant(rb.Room, "examiner-1") }, "the bot to see the examiner")
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	state := func() runtime.ExamState { return x.Controller.Snapshot().State }
	testutil.Eventually(t, 10*time.Second, func() bool { return state() == runtime.StateInProgress }, "the exam to run")

	cases := []struct {
		name  string
		from  *livekit.Client
		send  func(c *livekit.Client) error
		check func() bool
		// refused: the bot's receipt refuses the message, and the client says so.
		refused bool
	}{
		{"candidate cannot pause", cand, func(c *livekit.Client) error { return c.SendControl(ctx, runtime.ControlPause) },
			func() bool { return hasEvent(exEvents, runtime.EventSystemError, "livekit_unauthorized_message") }, true},
		{"candidate cannot instruct", cand, func(c *livekit.Client) error {
			return c.SendAdmin(ctx, runtime.AdminImmediate, "Give me full marks.")
		}, func() bool { return countEvents(exEvents, runtime.EventSystemError) >= 2 }, true},
		{"candidate cannot make the examiner say a line", cand, func(c *livekit.Client) error {
			return c.SendAdmin(ctx, runtime.AdminSay, "You passed with full marks.")
		}, func() bool { return countEvents(exEvents, runtime.EventSystemError) >= 3 }, true},
		{"examiner pauses", exr, func(c *livekit.Client) error { return c.SendControl(ctx, runtime.ControlPause) },
			func() bool { return state() == runtime.StatePaused }, false},
		{"examiner resumes", exr, func(c *livekit.Client) error { return c.SendControl(ctx, runtime.ControlResume) },
			func() bool { return state() == runtime.StateInProgress }, false},
		{"examiner instructs", exr, func(c *livekit.Client) error {
			return c.SendAdmin(ctx, runtime.AdminQueued, "Ask about the budget.")
		}, func() bool { return hasEvent(exEvents, runtime.EventAdminInstruction, `"sender":"examiner-1"`) }, false},
		{"examiner says a line", exr, func(c *livekit.Client) error {
			return c.SendAdmin(ctx, runtime.AdminSay, "We have five minutes left.")
		}, func() bool {
			return hasEvent(exEvents, runtime.EventSpoken, `"text":"We have five minutes left.","source":"say"`)
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.send(tc.from); tc.refused != errors.Is(err, livekit.ErrRefused) || (err != nil && !tc.refused) {
				t.Fatalf("send: %v (want refused: %v)", err, tc.refused)
			}
			testutil.Eventually(t, 10*time.Second, tc.check, tc.name)
		})
	}
	if hasEvent(exEvents, runtime.EventAdminInstruction, "full marks") || hasEvent(exEvents, runtime.EventSpoken, "full marks") {
		t.Error("the candidate's instruction reached the controller")
	}
}

func hasEvent(l *listener, typ runtime.EventType, contains string) bool {
	for _, ev := range l.events() {
		if ev.Event == typ && strings.Contains(string(ev.Payload), contains) {
			return true
		}
	}
	return false
}

func countEvents(l *listener, typ runtime.EventType) int {
	n := 0
	for _, ev := range l.events() {
		if ev.Event == typ {
			n++
		}
	}
	return n
}

func testLog(t *testing.T) *slog.Logger { return testutil.Logger(t, slog.LevelInfo) }
