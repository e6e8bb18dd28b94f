package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// screenshotPath is where -update saves one mid-exam capture, for the README.
const screenshotPath = "../../docs/screenshot.txt"

// tmuxTerm is the real binary running in a detached tmux session on a private server, so the
// console gets a real terminal (120×40) and real key presses.
type tmuxTerm struct {
	t    *testing.T
	sock string
	env  []string
}

const tmuxSession = "examtui"

func (tt *tmuxTerm) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-S", tt.sock}, args...)...)
	cmd.Env = tt.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (tt *tmuxTerm) must(args ...string) string {
	tt.t.Helper()
	out, err := tt.tmux(args...)
	if err != nil {
		tt.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return out
}

func (tt *tmuxTerm) capture() string {
	tt.t.Helper()
	return tt.must("capture-pane", "-p", "-t", tmuxSession)
}

// waitScreen polls the pane until it shows every one of want.
func (tt *tmuxTerm) waitScreen(what string, want ...string) string {
	tt.t.Helper()
	return testutil.WaitScreen(tt.t, 20*time.Second, tt.capture, what, want...)
}

func (tt *tmuxTerm) typeLine(s string) {
	tt.t.Helper()
	tt.must("send-keys", "-t", tmuxSession, "-l", s)
	tt.must("send-keys", "-t", tmuxSession, "Enter")
}

func (tt *tmuxTerm) keys(k ...string) {
	tt.t.Helper()
	tt.must(append([]string{"send-keys", "-t", tmuxSession}, k...)...)
}

// startInTmux runs `examtui args...` in a fresh tmux server. Its stderr goes to a file and its
// exit status to another, since the pane disappears with the process.
func startInTmux(t *testing.T, bin, dataDir string, args ...string) (tt *tmuxTerm, stderrPath, rcPath string) {
	t.Helper()
	return startInTmuxSize(t, 120, 40, bin, dataDir, args...)
}

// startInTmuxSize is startInTmux in a w×h terminal.
func startInTmuxSize(t *testing.T, w, h int, bin, dataDir string, args ...string) (tt *tmuxTerm, stderrPath, rcPath string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is required (apt-get install tmux): %v", err)
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	// A clean environment: no config file, no OpenAI endpoint, a private data directory.
	tt = &tmuxTerm{t: t, sock: filepath.Join(dir, "tmux.sock"), env: []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home,
		"TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "EXAMTUI_DATA_DIR=" + dataDir,
	}}
	stderrPath, rcPath = filepath.Join(dir, "stderr.txt"), filepath.Join(dir, "rc.txt")
	quoted := []string{shellQuote(bin)}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	script := fmt.Sprintf("%s 2>%s; echo $? >%s.tmp && mv %s.tmp %s", strings.Join(quoted, " "),
		shellQuote(stderrPath), shellQuote(rcPath), shellQuote(rcPath), shellQuote(rcPath))
	tt.must("-f", "/dev/null", "new-session", "-d", "-s", tmuxSession, "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), script)
	t.Cleanup(func() {
		_, _ = tt.tmux("kill-server")
		if t.Failed() {
			b, _ := os.ReadFile(stderrPath)
			rc, _ := os.ReadFile(rcPath)
			t.Logf("examtui %v exited %s; its stderr:\n%s", args, rc, b)
		}
	})
	return tt, stderrPath, rcPath
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// waitExit waits for the process in the pane to end and returns its exit status.
func waitExit(t *testing.T, rcPath string) int {
	t.Helper()
	var b []byte
	testutil.Eventually(t, 20*time.Second, func() bool {
		var err error
		b, err = os.ReadFile(rcPath)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		return err == nil
	}, "examtui to exit")
	code, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("exit status %q: %v", b, err)
	}
	return code
}

var storedLine = regexp.MustCompile(`session ([0-9a-f]+) stored in (\S+) \(examtui sessions show ([0-9a-f]+)\)`)

// waitExitOK waits for the process in the pane to end and fails the test, quoting its
// stderr, unless it exited 0.
func waitExitOK(t *testing.T, rcPath, stderrPath string) {
	t.Helper()
	if code := waitExit(t, rcPath); code != 0 {
		b, _ := os.ReadFile(stderrPath)
		t.Fatalf("examtui exited %d: %s", code, b)
	}
}

// storedSessionLine returns the submatches of the stored-session line the run printed on
// stderr (id, data dir, id again), failing the test when there is none.
func storedSessionLine(t *testing.T, stderrPath string) []string {
	t.Helper()
	stderr, err := os.ReadFile(stderrPath)
	if err != nil {
		t.Fatal(err)
	}
	m := storedLine.FindStringSubmatch(string(stderr))
	if m == nil {
		t.Fatalf("stderr lacks the stored-session line: %q", stderr)
	}
	return m
}

// openSessions opens the session store in dir for reading back what a run stored; it closes
// with the test.

// TestConsoleInTmux runs the built binary in a real terminal: the rehearsal's answers typed
// as key presses, the panes read off the screen, ctrl+c to leave, and the stored session
// read back.
func TestConsoleInTmux(t *testing.T) {
	bin := examtuiBinary(t)
	script := apptest.Rehearsal(t)
	after := [][]string{
		{"Timers node 2 of 4", "✓ welcome", "▶ scenario-hotel-breakfast", "Candidate: Hello, I'm Priya"},
		{"command repeat accepted"},
		{"Evidence 1 accepted", "✓ proposes_options", "1/2"},
		{"Timers node 3 of 4", "▶ scenario-staff-rota", "Evidence 2 accepted", "✓ analyses_clientele"},
		{"Evidence 3 accepted", "✓ plans_staffing"},
		{"· completed ·", "Timers node 4 of 4", "✓ wrapup", "Evidence 4 accepted", "✓ considers_budget", "exam completed"},
	}
	const screenshotAfter = 4 // mid-exam: node 3, evidence in two nodes
	if len(script.Turns) != len(after) {
		t.Fatalf("the rehearsal has %d turns, the test expects %d", len(script.Turns), len(after))
	}

	dataDir := filepath.Join(t.TempDir(), "data")
	tt, stderrPath, rcPath := startInTmux(t, bin, dataDir, "run", "demo", "--examiner", "offline")
	first := tt.waitScreen("start", "Hospitality Management", "· in_progress ·", "examiner offline", "input typed",
		"Timers node 1 of 4", "▶ welcome", "Examiner: Welcome.", "answer>")
	if lines := strings.Split(strings.TrimRight(first, "\n"), "\n"); len(lines) != 40 {
		t.Errorf("the pane shows %d lines, want 40", len(lines))
	}

	for i, turn := range script.Turns {
		if turn.Say == nil {
			t.Fatalf("turn %d is not a say step", i+1)
		}
		tt.typeLine(*turn.Say)
		s := tt.waitScreen("answer "+strconv.Itoa(i+1), append([]string{"answer sent"}, after[i]...)...)
		if i+1 == screenshotAfter && testutil.Updating() {
			if err := os.MkdirAll(filepath.Dir(screenshotPath), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(screenshotPath, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	final := tt.capture()
	if strings.Contains(final, "failed") {
		t.Errorf("the console reported a failure:\n%s", final)
	}

	tt.keys("C-c") // the exam is over: no confirmation
	waitExitOK(t, rcPath, stderrPath)
	m := storedSessionLine(t, stderrPath)
	if m[1] != m[3] || m[2] != dataDir {
		t.Fatalf("the stored-session line %q does not name %s", m[0], dataDir)
	}

	ctx := context.Background()
	st := apptest.OpenStore(t, dataDir)
	sess, err := st.Get(ctx, m[1])
	if err != nil {
		t.Fatal(err)
	}
	evs, err := st.LoadEvents(ctx, m[1])
	if err != nil {
		t.Fatal(err)
	}
	var visited []string
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		if ev.Event == runtime.EventNodeEntered {
			pl, err := ev.Decode()
			if err != nil {
				t.Fatal(err)
			}
			visited = append(visited, pl.(*runtime.NodeEnteredPayload).NodeID)
		}
	}
	if sess.State != runtime.StateCompleted || sess.Interrupted || evs[len(evs)-1].Event != runtime.EventExamCompleted {
		t.Errorf("stored session state %s interrupted %v last event %s", sess.State, sess.Interrupted, evs[len(evs)-1].Event)
	}
	if want := []string{"welcome", "scenario-hotel-breakfast", "scenario-staff-rota", "wrapup"}; !slices.Equal(visited, want) {
		t.Errorf("visited %v, want %v", visited, want)
	}
}

// TestConsoleInTmuxQuitConfirm leaves a running exam from the real terminal: ctrl+c asks, n
// stays, ctrl+c then y quits; the process exits 0 and the session stays resumable.
func TestConsoleInTmuxQuitConfirm(t *testing.T) {
	bin := examtuiBinary(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	tt, stderrPath, rcPath := startInTmux(t, bin, dataDir, "run", "demo", "--examiner", "offline")
	tt.waitScreen("start", "· in_progress ·", "answer>")
	tt.keys("C-p")
	tt.waitScreen("pause", "· paused ·", "exam paused")
	tt.keys("C-c")
	tt.waitScreen("quit asks", "Quit while the exam is running?")
	tt.keys("n")
	tt.keys("C-c")
	tt.waitScreen("quit asks again", "Quit while the exam is running?")
	tt.keys("y")
	waitExitOK(t, rcPath, stderrPath)
	m := storedSessionLine(t, stderrPath)
	sess, err := apptest.OpenStore(t, dataDir).Get(context.Background(), m[1])
	if err != nil {
		t.Fatal(err)
	}
	if !sess.Interrupted || sess.State.Terminal() {
		t.Errorf("a quit mid-exam left state %s interrupted %v, want a resumable session", sess.State, sess.Interrupted)
	}
}
