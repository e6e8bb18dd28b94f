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

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

func TestParseHeadlessLine(t *testing.T) {
	cases := []struct {
		line   string
		kind   headlessKind
		text   string
		action string
		err    bool
	}{
		{"", lineNone, "", "", false},
		{"   \t ", lineNone, "", "", false},
		{"We could open a second buffet line.", lineAnswer, "We could open a second buffet line.", "", false},
		{"  padded answer  ", lineAnswer, "padded answer", "", false},
		{"//etc/hosts is a file", lineAnswer, "/etc/hosts is a file", "", false},
		{"/pause", lineControl, "", "pause", false},
		{"/RESUME", lineControl, "", "resume", false},
		{" /skip ", lineControl, "", "skip", false},
		{"/advance", lineControl, "", "advance", false},
		{"/end", lineControl, "", "end", false},
		{"/admin Ask about costs.", lineAdmin, "Ask about costs.", "immediate", false},
		{"/queue   Mention the budget. ", lineAdmin, "Mention the budget.", "queued", false},
		{"/promote", lineAdmin, "", "promote", false},
		{"/promote now", 0, "", "", true},
		{"/admin", 0, "", "", true},
		{"/queue   ", 0, "", "", true},
		{"/pause now", 0, "", "", true},
		{"/bogus", 0, "", "", true},
		{"/", 0, "", "", true},
	}
	for _, tc := range cases {
		got, err := parseHeadlessLine(tc.line)
		if tc.err {
			if !errors.Is(err, errHeadlessCommand) {
				t.Errorf("%q: err %v, want errHeadlessCommand", tc.line, err)
			}
			continue
		}
		if err != nil || got.kind != tc.kind || got.text != tc.text || got.action != tc.action {
			t.Errorf("%q: got %v %q %q (err %v), want %v %q %q", tc.line, got.kind, got.text, got.action, err, tc.kind, tc.text, tc.action)
		}
	}
}

func FuzzParseHeadlessLine(f *testing.F) {
	for _, s := range []string{"", "answer", "/pause", "/admin x", "/queue  y ", "//x", "/", "/ pause", "/end\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got, err := parseHeadlessLine(line)
		if err != nil {
			if !errors.Is(err, errHeadlessCommand) || !strings.HasPrefix(strings.TrimSpace(line), "/") {
				t.Fatalf("%q: unexpected error %v", line, err)
			}
			return
		}
		s := strings.TrimSpace(line)
		switch got.kind {
		case lineNone:
			if s != "" {
				t.Fatalf("%q: ignored a non-blank line", line)
			}
		case lineAnswer:
			if got.text == "" || (!strings.HasSuffix(s, got.text)) || (strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//")) {
				t.Fatalf("%q: answer %q", line, got.text)
			}
		case lineControl:
			if _, err := runtime.ParseControlAction(got.action); err != nil {
				t.Fatalf("%q: control %q: %v", line, got.action, err)
			}
		case lineAdmin:
			if got.text == "" || (got.action != "immediate" && got.action != "queued") {
				t.Fatalf("%q: admin %q %q", line, got.action, got.text)
			}
		default:
			t.Fatalf("%q: kind %v", line, got.kind)
		}
	})
}

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
	for _, want := range []string{`unknown operator command: "/bogus"`, "control refused", "completed (61 events)"} {
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
	st, err := sessions.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(context.Background())
	if err != nil || len(list) != 1 || list[0].Status() != sessions.StatusCompleted || list[0].Candidate != "Priya" || list[0].EventCount != 61 {
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
