package main

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// readableLine masks what changes from run to run in a readable headless line: the clock time
// durations measured on the wall clock and the operator's user name.
var (
	readableClock    = regexp.MustCompile(`^(\s*\d+) \d\d:\d\d:\d\d\.\d\d\d `)
	readableDuration = regexp.MustCompile(`after [0-9.hms]+(ms|µs|s)\b`)
	readableSender   = regexp.MustCompile(`by console(:[^\s)]+)?`)
)

// TestHeadlessReadable runs the rehearsal headless in-process and compares the readable lines
// with a golden file (go test -run TestHeadlessReadable -update rewrites it). Refused lines go
// to stderr and the run goes on.
func TestHeadlessReadable(t *testing.T) {
	dir := t.TempDir()
	stdin := strings.Join(crashScript[:4], "\n") + "\n/bogus\n/resume\n" + strings.Join(crashScript[4:], "\n") + "\n"
	out, errOut, err := runCmd(t, stdin, "--data-dir", dir, "--log-file", filepath.Join(dir, "log.txt"),
		"run", "demo", "--headless", "--examiner", "offline", "--candidate", "Priya")
	if err != nil {
		t.Fatalf("headless run: %v\nstderr:\n%s", err, errOut)
	}
	for _, want := range []string{`unknown operator command: "/bogus"`, "control refused", "completed (62 events)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, l := range lines {
		if !readableClock.MatchString(l) {
			t.Fatalf("line %d is not a readable event line: %q", i+1, l)
		}
		l = readableClock.ReplaceAllString(l, "$1 hh:mm:ss.mmm ")
		l = readableDuration.ReplaceAllString(l, "after <d>")
		lines[i] = readableSender.ReplaceAllString(l, "by <operator>")
	}
	got := strings.Join(lines, "\n") + "\n"
	testutil.Golden(t, filepath.Join("testdata", "headless-readable.golden"), []byte(got))

	// The session is stored, completed, with the candidate's name.
	list, err := apptest.OpenStore(t, dir).List(context.Background())
	if err != nil || len(list) != 1 || list[0].Status() != sessions.StatusCompleted || list[0].Candidate != "Priya" || list[0].EventCount != 62 {
		t.Fatalf("stored sessions %+v, %v", list, err)
	}
}

// TestHeadlessErrors covers runs that cannot start.
func TestHeadlessErrors(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runCmd(t, "", "--data-dir", dir, "run", "--resume", "nosuch", "--headless"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("resume of an unknown session: %v", err)
	}
	// A completed session cannot be resumed.
	if _, _, err := runCmd(t, strings.Join(crashScript, "\n"), "--data-dir", dir, "run", "--headless", "--json"); err != nil {
		t.Fatal(err)
	}
	st, err := sessions.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := st.List(context.Background())
	st.Close()
	if len(list) != 1 {
		t.Fatalf("%d sessions", len(list))
	}
	if _, _, err := runCmd(t, "", "--data-dir", dir, "run", "--resume", list[0].ID, "--headless"); !errors.Is(err, sessions.ErrSessionEnded) {
		t.Errorf("resume of a completed session: %v", err)
	}
	bad := writeTemp(t, "bad.yaml", badSpec)
	if _, _, err := runCmd(t, "", "--data-dir", dir, "run", bad, "--headless"); exitCode(err) != 1 || !strings.Contains(err.Error(), "error") {
		t.Errorf("invalid spec: %v", err)
	}
	// --no-store runs the exam without a session store.
	out, _, err := runCmd(t, strings.Join(crashScript, "\n"), "--data-dir", t.TempDir(), "run", "--headless", "--no-store")
	if err != nil || !strings.Contains(out, "exam_completed") {
		t.Errorf("--no-store: %v\n%s", err, out)
	}
}

// TestHeadlessSignals: at the end of stdin the real binary keeps running until the exam ends;
// SIGTERM (or SIGINT) then closes it cleanly: exit 130, every printed event stored, the session
// interrupted by its own hand (not left for stale-lock detection) and resumable.
func TestHeadlessSignals(t *testing.T) {
	bin := examtuiBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			p := startHeadless(t, bin, 0, "--data-dir", dir, "run", "demo", "--headless", "--json")
			for _, line := range crashScript[:5] {
				p.write(line)
			}
			_ = p.stdin.Close()
			if !p.waitEvent(0, marker(crashScript[4]), 20*time.Second) {
				t.Fatalf("the fifth line was never applied; stderr:\n%s", p.stderr.String())
			}
			p.waitEvent(0, func(ev runtime.Event) bool {
				s, ok := decodeAs[*runtime.SpokenPayload](ev)
				return ok && s.Source == "examiner"
			}, 5*time.Second)
			select {
			case <-p.done:
				t.Fatalf("the process ended at the end of stdin; stderr:\n%s", p.stderr.String())
			case <-time.After(200 * time.Millisecond):
			}
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			killed, code := p.wait(20 * time.Second)
			if killed || code != exitHeadlessInterrupted || !strings.Contains(p.stderr.String(), "interrupted: session") {
				t.Fatalf("exit %d (killed %v); stderr:\n%s", code, killed, p.stderr.String())
			}
			printed := p.events()
			if len(printed) == 0 {
				t.Fatal("nothing printed")
			}
			id := printed[0].SessionID
			// Read the row before anything could recover it: the process marked it itself.
			st, err := sessions.Open(context.Background(), dir, sessions.WithRecovery(false))
			if err != nil {
				t.Fatal(err)
			}
			sess, err := st.Get(context.Background(), id)
			st.Close()
			if err != nil || !sess.Interrupted {
				t.Fatalf("session after %s: %+v %v", sig, sess, err)
			}
			stored := loadChecked(t, dir, id, sessions.StatusInterrupted, printed)
			if len(stored) != len(printed) {
				t.Errorf("a clean stop printed %d of %d stored events", len(printed), len(stored))
			}

			q := startHeadless(t, bin, 0, "--data-dir", dir, "run", "--resume", id, "--headless", "--json")
			for _, line := range crashScript[5:] {
				q.write(line)
			}
			_ = q.stdin.Close()
			if killed, code := q.wait(30 * time.Second); killed || code != 0 {
				t.Fatalf("resume: exit %d; stderr:\n%s", code, q.stderr.String())
			}
			all := loadChecked(t, dir, id, sessions.StatusCompleted, printed)
			checkPrinted(t, all, q.events(), int64(len(stored))+1)
			checkCompletedStream(t, all, int64(len(stored)))
		})
	}
}
