package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/tui"
	"github.com/examtui/examtui/tui/controlroom"
)

// TestMonitorRoomExam runs a real exam bot (the binary) in a real LiveKit room, writing to its
// own store: the control room finds the room through the server API, shows the exam with the
// candidate's identity, and a pause and a resume sent from its console travel over the room's
// examiner-commands topic; then the candidate leaves the room and comes back, and gives up: a
// real `examtui monitor --json` (another store, LiveKit configured) reports them away, then the
// distress, on the room's session.
func TestMonitorRoomExam(t *testing.T) {
	bin := examtuiBinary(t)
	srv := lktest.Start(t)
	dir := t.TempDir()
	t.Setenv("LIVEKIT_URL", srv.URL)
	t.Setenv("LIVEKIT_API_KEY", srv.APIKey)
	t.Setenv("LIVEKIT_API_SECRET", srv.Secret)
	t.Setenv("EXAMTUI_CONFIG", filepath.Join(dir, "none.yaml"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	spec := filepath.Join("..", "..", "examples", "hotel-breakfast.yaml")
	bot := exec.Command(bin, "run", spec, "--room", srv.Room, "--headless", "--json", "--examiner", "offline",
		"--tts", "none", "--stt", "none", "--data-dir", filepath.Join(dir, "bot"), "--log-file", filepath.Join(dir, "bot.log"))
	bot.Env = os.Environ()
	var botOut strings.Builder
	bot.Stdout = &botOut
	if err := bot.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bot.Process.Kill(); _ = bot.Wait() })

	cand := apptest.DialBot(ctx, t, srv, "candidate-7", livekit.RoleCandidate)
	var (
		mu      sync.Mutex
		heard   []runtime.Event
		session string
	)
	go func() {
		for ev := range cand.Events() {
			mu.Lock()
			heard = append(heard, ev)
			if session == "" {
				session = ev.SessionID
			}
			mu.Unlock()
		}
	}()
	waitHeard := func(what string, match func(runtime.Event) bool) runtime.Event {
		t.Helper()
		for {
			mu.Lock()
			for _, ev := range heard {
				if match(ev) {
					mu.Unlock()
					return ev
				}
			}
			mu.Unlock()
			select {
			case <-ctx.Done():
				t.Fatalf("the candidate never saw %s", what)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	waitHeard("the examiner speak", func(ev runtime.Event) bool { return ev.Event == runtime.EventSpoken })

	// A real monitor --json on another store, LiveKit configured through the environment.
	var monErr testutil.SyncBuffer
	out := startMonitor(t, bin, &monErr, "--data-dir", filepath.Join(dir, "monitor"), "--log-file", filepath.Join(dir, "monitor.log"), "monitor", "--json")
	alerts := make(chan alertLine, 16)
	scanAlerts(t, out, func(a alertLine) { alerts <- a })

	// The control room in-process: rooms only (its board has no store behind it).
	rw := newRoomWatcher(slog.New(slog.DiscardHandler), defaultAgentName)
	if rw == nil {
		t.Fatal("LiveKit configured, but no room watcher")
	}
	board, err := monitor.NewBoard(monitor.Thresholds{})
	if err != nil {
		t.Fatal(err)
	}
	tm := newControlRoomTest(t, board,
		controlroom.WithLoader(func(_ context.Context, id string) ([]runtime.Event, error) { return rw.History(id), nil }),
		controlroom.WithBackend(func(r *monitor.Row) (tui.Backend, error) {
			b, ok := rw.Backend(ctx, r.SessionID)
			if !ok {
				t.Errorf("no room backend for %s", r.SessionID)
			}
			return b, nil
		}))
	msgs := make(chan app.RoomMsg, 16)
	rctx, rcancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); rw.Run(rctx, msgs) }()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-rctx.Done():
				return
			case rm := <-msgs:
				tm.Send(roomMsgToControlRoom(rm))
			}
		}
	}()
	defer func() { rcancel(); wg.Wait() }()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "candidate-7") },
		teatest.WithDuration(30*time.Second))
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	// The console opens with the exam's history as the room showed it.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "Welcome. This is a practice") },
		teatest.WithDuration(10*time.Second))
	stateIs := func(s runtime.ExamState) func(runtime.Event) bool {
		return func(ev runtime.Event) bool {
			p, ok := decodeAs[*runtime.ExamStatePayload](ev)
			return ok && p.State == s && strings.Contains(p.Reason, "monitor-")
		}
	}
	tm.Send(tea.KeyPressMsg{Code: 'p', Mod: tea.ModCtrl})
	waitHeard("the exam paused by the monitor", stateIs(runtime.StatePaused))
	// The console learns of the pause through the room, then ctrl+p resumes.
	time.Sleep(500 * time.Millisecond)
	tm.Send(tea.KeyPressMsg{Code: 'p', Mod: tea.ModCtrl})
	waitHeard("the exam resumed by the monitor", stateIs(runtime.StateInProgress))

	entered := func(ev runtime.Event) bool { return ev.Event == runtime.EventNodeEntered }
	waitHeard("the first node", entered)
	if err := cand.SendCandidateText(ctx, "Hello, I am on the hospitality management course.", 1); err != nil {
		t.Fatal(err)
	}
	waitHeard("the scenario", func(ev runtime.Event) bool {
		p, ok := decodeAs[*runtime.NodeEnteredPayload](ev)
		return ok && p.Progress.CurrentNodeIndex == 2
	})
	// The candidate leaves the room: the bot pauses the exam and the monitor raises AWAY on
	// the room's session. They come back and carry on under the same identity.
	cand.Close()
	mu.Lock()
	sessionID := session
	mu.Unlock()
	awayBy := time.After(60 * time.Second)
	for away := false; !away; {
		select {
		case a := <-alerts:
			away = a.Kind == "away" && a.SessionID == sessionID
		case <-awayBy:
			t.Fatalf("monitor --json never reported the candidate away from %s", sessionID)
		}
	}
	cand = apptest.DialBot(ctx, t, srv, "candidate-7", livekit.RoleCandidate)
	if err := cand.SendCandidateText(ctx, "i give up, i can't do this", 1); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(60 * time.Second)
	for {
		select {
		case a := <-alerts:
			if a.Kind == "distress" {
				mu.Lock()
				want := session
				mu.Unlock()
				if a.SessionID != want {
					t.Fatalf("distress on %s, want the room's session %s", a.SessionID, want)
				}
				tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
				final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*controlroom.Model)
				if r := final.Board().Row(want); r == nil || r.Room != srv.Room || r.Candidate != "candidate-7" {
					t.Errorf("the room's row: %+v", r)
				}
				return
			}
		case <-deadline:
			log, _ := os.ReadFile(filepath.Join(dir, "monitor.log"))
			mu.Lock()
			var seen []string
			for _, ev := range heard {
				seen = append(seen, string(ev.Event))
			}
			mu.Unlock()
			t.Fatalf("monitor --json never reported the distress; the candidate saw %v\nits stderr: %s\nits log:\n%s\nthe bot printed:\n%s",
				seen, monErr.String(), tail(string(log), 30), tail(botOut.String(), 40))
		}
	}
}

// TestMonitorDispatchNotStarted: an exam dispatched (examtui dispatch --wait 0, the workers'
// agent name) to a room where no worker runs and a candidate waits. A real `examtui monitor
// --json` with LiveKit configured and monitor.notStartedAfter 2s reports the room not started,
// with the candidate. (Before, the room was invisible to the control room.)
func TestMonitorDispatchNotStarted(t *testing.T) {
	bin := examtuiBinary(t)
	srv := lktest.Start(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("monitor:\n  notStartedAfter: 2s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LIVEKIT_URL", srv.URL)
	t.Setenv("LIVEKIT_API_KEY", srv.APIKey)
	t.Setenv("LIVEKIT_API_SECRET", srv.Secret)
	t.Setenv("EXAMTUI_CONFIG", cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	d := exec.CommandContext(ctx, bin, "dispatch", "--room", srv.Room, "--spec", "hotel", "--wait", "0", "--data-dir", filepath.Join(dir, "d"))
	d.Env = os.Environ()
	if out, err := d.CombinedOutput(); err != nil {
		t.Fatalf("dispatch: %v\n%s", err, out)
	}
	apptest.Dial(ctx, t, srv, "cand-waiting", livekit.RoleCandidate)

	var monErr testutil.SyncBuffer
	out := startMonitor(t, bin, &monErr, "--data-dir", filepath.Join(dir, "monitor"), "--log-file", filepath.Join(dir, "monitor.log"), "monitor", "--json")
	alerts := make(chan alertLine, 16)
	scanAlerts(t, out, func(a alertLine) { alerts <- a })
	for {
		select {
		case a := <-alerts:
			if a.Kind != monitor.AlertNotStarted.String() {
				continue
			}
			if a.Room != srv.Room || a.Candidate != "cand-waiting" || a.SessionID != "" {
				t.Errorf("not started alert %+v, want room %s, candidate cand-waiting, no session", a, srv.Room)
			}
			return
		case <-ctx.Done():
			log, _ := os.ReadFile(filepath.Join(dir, "monitor.log"))
			t.Fatalf("monitor --json never reported the room not started; stderr %s\nlog:\n%s", monErr.String(), tail(string(log), 30))
		}
	}
}
