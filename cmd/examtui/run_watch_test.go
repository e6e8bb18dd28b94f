package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime"
)

// TestWatchInTmux edits the spec under a running console (the real binary in a real terminal):
// a bad edit shows its positioned errors and the exam stays on the version it runs; a good
// edit applies from the next node entry; both are in the stored session.
func TestWatchInTmux(t *testing.T) {
	bin := examtuiBinary(t)
	dir := t.TempDir()
	specPath := filepath.Join(dir, "exam.yaml")
	orig := string(examples.Demo())
	write := func(s string) {
		t.Helper()
		// As editors do: a new file renamed over the old one.
		if err := os.WriteFile(specPath+".tmp", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(specPath+".tmp", specPath); err != nil {
			t.Fatal(err)
		}
	}
	write(orig)
	const (
		oldBreakfast = "Sam says: our breakfast is losing money and guests are unhappy. What would you do?"
		badBreakfast = "Sam says: THIS VERSION NEVER RUNS."
		oldRota      = "Sam asks: how should we staff the restaurant for the conference lunches?"
		newRota      = "Sam asks: who works the conference lunches, and on which shifts?"
	)
	mustReplace := func(s, old, new string) string {
		t.Helper()
		if !strings.Contains(s, old) {
			t.Fatalf("the demo spec lacks %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	dataDir := filepath.Join(dir, "data")
	tt, stderrPath, rcPath := startInTmux(t, bin, dataDir, "run", specPath, "--watch", "--examiner", "offline")
	tt.waitScreen("start", "· in_progress ·", "Timers node 1 of 4", "answer>")

	// A bad edit: a new prompt, and a misspelt key that leaves welcome without a next.
	bad := mustReplace(mustReplace(orig, oldBreakfast, badBreakfast), "    next: scenario-hotel-breakfast\n", "    nxet: scenario-hotel-breakfast\n")
	write(bad)
	tt.waitScreen("bad edit", "spec edit rejected: "+specPath+":")
	tt.keys("C-g")
	tt.waitScreen("errors listed", "Edit  rejected", "unknown field nxet in nodes[0]", "✗ "+specPath[:20])
	tt.keys("C-g") // closes it (esc would too, but a key typed right after it reads as alt+key)
	tt.typeLine("Hello, I'm Priya and I'm on the hospitality management course.")
	s := tt.waitScreen("next node on the running version", "Timers node 2 of 4", oldBreakfast[:40])
	if strings.Contains(s, "NEVER RUNS") {
		t.Fatalf("the rejected version ran:\n%s", s)
	}

	// A good edit: the staff-rota node gets a new opening question.
	write(mustReplace(orig, oldRota, newRota))
	tt.waitScreen("good edit", "spec edit compiled: it applies from the next node")
	tt.typeLine("We could open a second buffet line, or another way is a grab-and-go counter.")
	tt.typeLine("Most guests at that time are business travellers who are in a hurry.")
	tt.waitScreen("applied at the next node", "Timers node 3 of 4", "spec edit applied from node scenario-staff-rota", newRota[:40])

	tt.keys("C-c")
	tt.waitScreen("quit asks", "Quit while the exam is running?")
	tt.keys("y")
	waitExitOK(t, rcPath, stderrPath)
	m := storedSessionLine(t, stderrPath)
	evs, err := apptest.OpenStore(t, dataDir).LoadEvents(context.Background(), m[1])
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range evs {
		if ev.Event != runtime.EventSpecReload {
			continue
		}
		p, err := ev.Decode()
		if err != nil {
			t.Fatal(err)
		}
		r := p.(*runtime.SpecReloadPayload)
		got = append(got, r.Status.String()+"@"+r.NodeID)
		if r.Status == runtime.ReloadRejected && (len(r.Errors) == 0 || !strings.HasPrefix(r.Errors[0], specPath+":")) {
			t.Errorf("rejected without positioned errors: %+v", r)
		}
	}
	want := "rejected@welcome staged@scenario-hotel-breakfast applied@scenario-staff-rota"
	if strings.Join(got, " ") != want {
		t.Errorf("stored reloads %v, want %s", got, want)
	}
}
