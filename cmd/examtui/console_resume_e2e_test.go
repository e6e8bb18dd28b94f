package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/runtime"
)

// paneChild is the pid of the process the pane's shell runs (examtui), read from /proc: the
// pane's own pid is the shell that records the exit status.
func (tt *tmuxTerm) paneChild() int {
	tt.t.Helper()
	shell := strings.TrimSpace(tt.must("display-message", "-p", "-t", tmuxSession, "#{pane_pid}"))
	b, err := os.ReadFile(filepath.Join("/proc", shell, "task", shell, "children"))
	if err != nil {
		tt.t.Fatal(err)
	}
	fields := strings.Fields(string(b))
	if len(fields) != 1 {
		tt.t.Fatalf("the pane's shell %s has children %q, want one examtui", shell, fields)
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil {
		tt.t.Fatal(err)
	}
	return pid
}

// TestConsoleResumeAfterKill kills a console exam with SIGKILL at node 3 of 4 after three
// accepted signals, resumes it with `run --resume ID` in a new terminal, and reads the panes:
// the console must open on the stored exam (node, clocks with their budgets, the node list,
// the evidence, the transcript), not on an empty one, and go on from there.
func TestConsoleResumeAfterKill(t *testing.T) {
	bin := examtuiBinary(t)
	script := apptest.Rehearsal(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	tt, _, rcPath := startInTmux(t, bin, dataDir, "run", "demo", "--examiner", "offline")
	tt.waitScreen("start", "· in_progress ·", "answer>")
	const killAfter = 5 // node 3 of 4, evidence 3 accepted
	after := []string{"Timers node 2 of 4", "command repeat accepted", "Evidence 1 accepted", "Evidence 2 accepted", "Evidence 3 accepted"}
	for i, turn := range script.Turns[:killAfter] {
		tt.typeLine(*turn.Say)
		tt.waitScreen("answer "+strconv.Itoa(i+1), "answer sent", after[i])
	}
	tt.waitScreen("node 3 with three signals", "Timers node 3 of 4", "Evidence 3 accepted", "✓ plans_staffing")
	if err := syscall.Kill(tt.paneChild(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, rcPath); code != 128+int(syscall.SIGKILL) {
		t.Fatalf("examtui exited %d, want killed", code)
	}

	st := apptest.OpenStore(t, dataDir)
	list, err := st.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("%d sessions stored, want 1", len(list))
	}
	id := list[0].ID

	tt2, stderrPath, rcPath2 := startInTmux(t, bin, dataDir, "run", "--resume", id, "--examiner", "offline")
	s := tt2.waitScreen("the resumed console", "· in_progress ·", "session "+id,
		"Timers node 3 of 4", "State in_progress · scenario-staff-rota", "/ 04:00", "/ 20:00",
		"✓ welcome", "✓ scenario-hotel-breakfast", "▶ scenario-staff-rota",
		"Evidence 3 accepted", "✓ proposes_options", "✓ analyses_clientele", "✓ plans_staffing",
		"Candidate: I would add two extra people")
	if strings.Contains(s, "no evidence yet") || strings.Contains(s, "· created ·") {
		t.Errorf("the resumed console shows an empty exam:\n%s", s)
	}

	tt2.typeLine(*script.Turns[killAfter].Say)
	tt2.waitScreen("the exam goes on", "· completed ·", "Timers node 4 of 4", "Evidence 4 accepted", "✓ considers_budget")
	tt2.keys("C-c")
	waitExitOK(t, rcPath2, stderrPath)
	sess, err := st.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if sess.State != runtime.StateCompleted {
		t.Errorf("the resumed session ended %s, want completed", sess.State)
	}
}
