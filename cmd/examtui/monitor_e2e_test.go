package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui"
	"github.com/examtui/examtui/tui/controlroom"
)

// alertLine is one line of examtui monitor --json.
type alertLine struct {
	Kind      string `json:"kind"`
	SessionID string `json:"sessionId"`
	Candidate string `json:"candidate"`
	Room      string `json:"room"`
}

// TestMonitorEndToEnd runs three real headless exams on one store: alice says she gives up
// (the distress guardrail), bob stops answering (stalls), carol answers once and is then
// killed. A real `examtui monitor --json` must report distress on alice's session, a stall on
// bob's and carol's exam as interrupted, and a pause sent from the control room's console on
// bob's row must pause bob's exam and no other. It runs on both stores: SQLite in a shared data
// directory, and PostgreSQL through --store, where every process (each exam, the monitor) has
// a data directory of its own, as on separate machines: nothing is shared but the database.
func TestMonitorEndToEnd(t *testing.T) {
	for _, store := range []struct {
		name string
		args func(t *testing.T, data string) (args []string, target string)
	}{
		{"sqlite", func(t *testing.T, data string) ([]string, string) { return []string{"--data-dir", data}, data }},
		{"postgres", func(t *testing.T, _ string) ([]string, string) {
			url := pgtest.NewDB(t)
			return []string{"--store", url}, url
		}},
	} {
		t.Run(store.name, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			args, target := store.args(t, data)
			// Each process's own data directory: the shared one for SQLite, a private one (its
			// logs, lock files if any) beside the PostgreSQL store.
			own := func() []string {
				if store.name == "sqlite" {
					return args
				}
				return append([]string{"--data-dir", t.TempDir()}, args...)
			}
			testMonitorEndToEnd(t, dir, own, target)
		})
	}
}

func testMonitorEndToEnd(t *testing.T, dir string, storeArgs func() []string, target string) {
	bin := examtuiBinary(t)
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("monitor:\n  stalledAfter: 3s\n  silentAfter: 1h\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EXAMTUI_CONFIG", cfg)
	t.Setenv("EXAMTUI_STORE", "")
	spec := filepath.Join("..", "..", "examples", "hotel-breakfast.yaml")

	start := func(name string) *headlessProc {
		p := startHeadless(t, bin, 0, append(storeArgs(), "run", spec, "--headless", "--json",
			"--examiner", "offline", "--candidate", name)...)
		t.Cleanup(func() { p.kill(); _ = p.cmd.Wait() })
		if !p.waitEvent(0, func(ev runtime.Event) bool { return ev.Event == runtime.EventNodeEntered }, 20*time.Second) {
			t.Fatalf("%s's exam never started; stderr:\n%s", name, p.stderr.String())
		}
		return p
	}
	alice, bob, carol := start("alice"), start("bob"), start("carol")
	id := func(p *headlessProc) string { return p.events()[0].SessionID }

	out := startMonitor(t, bin, nil, append(storeArgs(), "monitor", "--json", "--interval", "200ms")...)
	var (
		mu     sync.Mutex
		alerts []alertLine
	)
	scanAlerts(t, out, func(a alertLine) {
		mu.Lock()
		alerts = append(alerts, a)
		mu.Unlock()
	})

	for _, p := range []*headlessProc{alice, bob, carol} {
		p.write("Hello, I am on the hospitality management course.")
	}
	alice.write("i give up, i can't do this")
	has := func(kind, session string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, a := range alerts {
			if a.Kind == kind && a.SessionID == session {
				return true
			}
		}
		return false
	}
	if !testutil.Poll(30*time.Second, func() bool { return has("distress", id(alice)) && has("stalled", id(bob)) }) {
		mu.Lock()
		t.Fatalf("monitor --json printed %+v; want distress on alice (%s) and stalled on bob (%s)", alerts, id(alice), id(bob))
	}
	if has("distress", id(bob)) || has("distress", id(carol)) {
		t.Errorf("distress reported on the wrong exam: %+v", alerts)
	}

	// carol's process dies without a word: the monitor finds her exam's owner gone (on
	// PostgreSQL by her lease, from another data directory) and reports it interrupted.
	carol.kill()
	if !testutil.Poll(30*time.Second, func() bool { return has("interrupted", id(carol)) }) {
		mu.Lock()
		t.Fatalf("monitor --json printed %+v; want interrupted on carol (%s)", alerts, id(carol))
	}
	if has("interrupted", id(alice)) || has("interrupted", id(bob)) {
		t.Errorf("a running exam was reported interrupted: %+v", alerts)
	}

	// The control room console, on the same store: filter to bob, open his exam, pause it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store, err := sessions.OpenURL(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	board, err := monitor.NewBoard(monitor.Thresholds{Stalled: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tm := newControlRoomTest(t, board, controlroom.WithLoader(openAccess(store, store.LoadEvents)),
		controlroom.WithBackend(func(r *monitor.Row) (tui.Backend, error) {
			return app.StoreBackend(ctx, store, r.SessionID, "monitor:"+defaultExaminerIdentity()), nil
		}))
	updates := make(chan monitor.Update, 4)
	go monitor.Follow(ctx, store, monitor.FollowOptions{Interval: 200 * time.Millisecond}, updates)
	go func() {
		for u := range updates {
			tm.Send(controlroom.UpdateMsg(u))
		}
	}()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return contains(b, "carol") && contains(b, "bob") },
		teatest.WithDuration(15*time.Second))
	tm.Type("/bob")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return contains(b, "Transcript") },
		teatest.WithDuration(15*time.Second))
	mark := len(bob.events())
	tm.Send(tea.KeyPressMsg{Code: 'p', Mod: tea.ModCtrl})
	paused := func(ev runtime.Event) bool {
		p, ok := decodeAs[*runtime.ExamStatePayload](ev)
		return ok && p.State == runtime.StatePaused
	}
	if !bob.waitEvent(mark, paused, 20*time.Second) {
		t.Fatalf("bob's exam never paused; stderr:\n%s", bob.stderr.String())
	}
	var sender string
	for _, ev := range bob.events()[mark:] {
		if p, ok := decodeAs[*runtime.AdminInstructionPayload](ev); ok && p.Mode == "control" {
			sender = p.Sender
		}
	}
	// The identity ends in a random suffix per process (defaultExaminerIdentity).
	if want := strings.TrimRight(defaultExaminerIdentity(), "0123456789abcdef"); !strings.HasPrefix(sender, "monitor:"+want) {
		t.Errorf("the pause was recorded as sent by %q", sender)
	}
	// Esc returns to the list with bob still selected.
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	time.Sleep(time.Second) // a pause sent to the wrong exam would have landed by now
	for _, p := range []*headlessProc{alice, carol} {
		for _, ev := range p.events() {
			if paused(ev) {
				t.Errorf("%s was paused too", ev.SessionID)
			}
		}
	}
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*controlroom.Model)
	if final.Open() != "" || final.Selected() != id(bob) {
		t.Errorf("after esc: open %q, selected %q; want the list with bob (%s) selected", final.Open(), final.Selected(), id(bob))
	}
	if r := final.Board().Row(id(bob)); r == nil || r.State != monitor.RowPaused {
		t.Errorf("the board shows bob as %v", r)
	}
	// Opening bob's exam is in the access log, under the store's identity.
	if log, err := store.AccessLog(ctx, sessions.AccessFilter{SessionID: id(bob)}); err != nil || len(log) == 0 || log[0].Action != sessions.AccessMonitorOpen {
		t.Errorf("access log of bob's exam = %+v, %v; want the control room's opening", log, err)
	}
}

// startMonitor starts the binary with args (a monitor) in the test's environment, its standard
// error to stderr (discarded when nil), and returns its standard output; it is killed with the
// test.
func startMonitor(t *testing.T, bin string, stderr io.Writer, args ...string) io.Reader {
	t.Helper()
	mon := exec.Command(bin, args...)
	mon.Env = os.Environ()
	mon.Stderr = stderr
	out, err := mon.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := mon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mon.Process.Kill(); _ = mon.Wait() })
	return out
}

// newControlRoomTest runs the control room console over board with opts (its loader and
// backend), quiet, without colour or a ticking clock, in a 120×40 test terminal.
func newControlRoomTest(t *testing.T, board *monitor.Board, opts ...controlroom.Option) *teatest.TestModel {
	t.Helper()
	m, err := controlroom.New(board, append([]controlroom.Option{controlroom.WithNoColor(true),
		controlroom.WithQuiet(true), controlroom.WithTickInterval(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
}

// scanAlerts hands each line `examtui monitor --json` prints on out to each, as it comes; a
// line that is not an alert fails the test.
func scanAlerts(t *testing.T, out io.Reader, each func(alertLine)) {
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var a alertLine
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				t.Errorf("monitor --json printed %q: %v", sc.Text(), err)
				continue
			}
			each(a)
		}
	}()
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
