package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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
}

// TestMonitorEndToEnd runs three real headless exams on one store: alice says she gives up
// (the distress guardrail), bob stops answering (stalls), carol answers once. A real
// `examtui monitor --json` must report distress on alice's session and a stall on bob's, and a
// pause sent from the control room's console on bob's row must pause bob's exam and no other.
func TestMonitorEndToEnd(t *testing.T) {
	bin := examtuiBinary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("monitor:\n  stalledAfter: 3s\n  silentAfter: 1h\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EXAMTUI_CONFIG", cfg)
	spec := filepath.Join("..", "..", "examples", "hotel-breakfast.yaml")

	start := func(name string) *headlessProc {
		p := startHeadless(t, bin, 0, "--data-dir", data, "run", spec, "--headless", "--json",
			"--examiner", "offline", "--candidate", name)
		t.Cleanup(func() { p.kill(); _ = p.cmd.Wait() })
		if !p.waitEvent(0, func(ev runtime.Event) bool { return ev.Event == runtime.EventNodeEntered }, 20*time.Second) {
			t.Fatalf("%s's exam never started; stderr:\n%s", name, p.stderr.String())
		}
		return p
	}
	alice, bob, carol := start("alice"), start("bob"), start("carol")
	id := func(p *headlessProc) string { return p.events()[0].SessionID }

	mon := exec.Command(bin, "--data-dir", data, "monitor", "--json", "--interval", "200ms")
	mon.Env = os.Environ()
	out, err := mon.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := mon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mon.Process.Kill(); _ = mon.Wait() })
	var (
		mu     sync.Mutex
		alerts []alertLine
	)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var a alertLine
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				t.Errorf("monitor --json printed %q: %v", sc.Text(), err)
				continue
			}
			mu.Lock()
			alerts = append(alerts, a)
			mu.Unlock()
		}
	}()

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
	deadline := time.Now().Add(30 * time.Second)
	for !(has("distress", id(alice)) && has("stalled", id(bob))) {
		if time.Now().After(deadline) {
			mu.Lock()
			t.Fatalf("monitor --json printed %+v; want distress on alice (%s) and stalled on bob (%s)", alerts, id(alice), id(bob))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if has("distress", id(bob)) || has("distress", id(carol)) {
		t.Errorf("distress reported on the wrong exam: %+v", alerts)
	}

	// The control room console, on the same store: filter to bob, open his exam, pause it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store, err := sessions.Open(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	board, err := monitor.NewBoard(monitor.Thresholds{Stalled: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m, err := controlroom.New(board, controlroom.WithLoader(store.LoadEvents), controlroom.WithNoColor(true),
		controlroom.WithQuiet(true), controlroom.WithTickInterval(0),
		controlroom.WithBackend(func(r *monitor.Row) (tui.Backend, error) { return storeBackend(ctx, store, r.SessionID), nil }))
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
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
	// The identity is unique per process (examiner-<user>-<random>): check its stable part.
	if !strings.HasPrefix(sender, "monitor:examiner-") {
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
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
