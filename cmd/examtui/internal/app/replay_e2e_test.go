package app_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui"
)

// recordRehearsal runs the hotel rehearsal on the real controller with a store in dir and
// returns the session id.
func recordRehearsal(t *testing.T, dir string) string {
	t.Helper()
	script := apptest.Rehearsal(t)
	ctx := context.Background()
	x := apptest.OpenExam(ctx, t, app.Options{DataDir: dir})
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, turn := range script.Turns {
		if err := x.SubmitText(*turn.Say); err != nil {
			t.Fatal(err)
		}
	}
	if st := x.Controller.Snapshot().State; st != runtime.StateCompleted {
		t.Fatalf("the rehearsal ended in %s", st)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	return x.SessionID
}

// TestReplayConsole replays a stored session in the console the way `examtui replay ID`
// should: the sessions Player over the store's event iterator steers a read-only console.
// Stepping shows one event at a time; played out, the panes show exactly what a console fed
// the whole session at once shows.
func TestReplayConsole(t *testing.T) {
	dir := t.TempDir()
	id := recordRehearsal(t, dir)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := apptest.OpenStore(t, dir)
	all, err := st.LoadEvents(ctx, id)
	if err != nil {
		t.Fatal(err)
	}

	// The wiring the replay command uses (cmd/examtui/replay.go without --json).
	r, err := app.OpenReplay(ctx, st, id, 1,
		[]sessions.PlayerOption{sessions.WithSpeed(16), sessions.WithGapCap(5 * time.Millisecond), sessions.WithStartPaused()},
		tui.WithNoColor(true), tui.WithDarkBackground(true), tui.WithTickInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	sess, m, p, events, played := r.Session, r.Model, r.Player, r.Events, r.Played
	info := tui.Info{Title: sess.Title, Examiner: sess.Examiner, Input: sess.Input, SessionID: id, ReadOnly: true}
	c := &console{t: t}
	c.program(m)
	c.bridge(m, events)
	defer func() { cancel(); c.stop() }()

	n := len(all)
	c.waitScreen("paused at the start", fmt.Sprintf("replay 16× ⏸ event 0 of %d", n))
	c.key(letter('n'))
	c.waitScreen("first step", fmt.Sprintf("event 1 of %d", n), "· scaffolding ·")
	c.key(letter('n'))
	c.key(tea.KeyPressMsg{Code: tea.KeyRight})
	c.waitScreen("third step", fmt.Sprintf("event 3 of %d", n))
	c.key(letter('-'))
	c.waitScreen("slower", fmt.Sprintf("replay 8× ⏸ event 3 of %d", n), "replay speed 8×")
	c.key(letter('+'))
	c.key(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	got := c.waitScreen("played out", fmt.Sprintf("replay done event %d of %d", n, n), "· completed ·", "replay finished")
	if err := <-played; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("player: %v", err)
	}
	if speed, paused, emitted := p.State(); speed != 16 || paused || emitted != int64(n) {
		t.Errorf("player speed %g paused %v emitted %d of %d", speed, paused, emitted, n)
	}

	want, err := tui.Screenshot(info, all, 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	gotBody, wantBody := body(got), body(want)
	if gotBody != wantBody {
		t.Errorf("the replayed panes differ from the session's:\n--- replay\n%s\n--- session\n%s", gotBody, wantBody)
	}
	c.key(letter('q'))
	c.tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// body drops a frame's status line and footer, leaving the panes.
func body(frame string) string {
	lines := strings.Split(frame, "\n")
	if len(lines) < 3 {
		return frame
	}
	return strings.Join(lines[1:len(lines)-1], "\n")
}
