package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/transport/livekit"
)

// lineProc is an examtui process whose stdout is read line by line.
type lineProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
}

func startLineProc(t *testing.T, ctx context.Context, args ...string) *lineProc {
	t.Helper()
	cmd := exec.CommandContext(ctx, examtuiBinary(t), args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &lineProc{cmd: cmd, stdin: stdin, lines: make(chan string, 1024)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", args[0], tail(stderr.String(), 2000))
		}
	})
	return p
}

// presenceFeed collects the presence lines of a watcher's output (JSON events or --plain lines).
type presenceFeed struct {
	t     *testing.T
	p     *lineProc
	json  bool
	lines []string
}

// await reads until the presence lines end with want, or fails after d.
func (f *presenceFeed) await(d time.Duration, want ...string) {
	f.t.Helper()
	deadline := time.After(d)
	for {
		if n := len(f.lines); n >= len(want) && slices.Equal(f.lines[n-len(want):], want) {
			return
		}
		select {
		case line, ok := <-f.p.lines:
			if !ok {
				f.t.Fatalf("the watcher ended; it saw %q, want it to end with %q", f.lines, want)
			}
			if s := f.summary(line); s != "" {
				f.lines = append(f.lines, s)
			}
		case <-deadline:
			f.t.Fatalf("after %s the watcher saw %q, want it to end with %q", d, f.lines, want)
		}
	}
}

func (f *presenceFeed) summary(line string) string {
	if f.json {
		var ev runtime.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			f.t.Fatalf("watch --json line %q: %v", line, err)
		}
		return app.PresenceSummary(ev)
	}
	// "   7 15:04:05.000 candidate_presence   candidate candidate-1 joined",
	// "   9 15:04:06.000 exam_state           in_progress → paused: candidate left"
	fields := strings.Fields(line)
	if len(fields) < 4 || (fields[2] != string(runtime.EventCandidatePresence) && fields[2] != string(runtime.EventExamState)) {
		return ""
	}
	rest := strings.TrimSpace(strings.SplitN(line, fields[2], 2)[1])
	if fields[2] == string(runtime.EventExamState) {
		// "in_progress → paused (candidate left)": the readable line keeps the reason, which
		// names who paused; put it in PauseSummary's words to compare with --json and the store.
		from, after, ok := strings.Cut(rest, " → ")
		to, reason, _ := strings.Cut(after, " (")
		reason = strings.TrimSuffix(reason, ")")
		switch {
		case !ok:
			return ""
		case to == string(runtime.StatePaused) && strings.HasPrefix(reason, "paused by "):
			return reason
		case to == string(runtime.StatePaused):
			return "paused: " + reason
		case from == string(runtime.StatePaused) && strings.HasPrefix(reason, "resumed by "):
			return reason
		case from == string(runtime.StatePaused):
			return "resumed: " + reason
		}
		return "" // an exam_state that is not a pause or a resume
	}
	return rest
}

// TestRoomPresenceWatch runs the real binaries: `run --room --headless`, an examiner on `watch
// --json --commands`, a candidate who joins, leaves and rejoins, then a late examiner on `watch
// --plain`. Both examiners see the three changes in order, with the pauses and who made them,
// and so does the stored session (`sessions show`).
func TestRoomPresenceWatch(t *testing.T) {
	srv := lktest.Start(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	creds := []string{"--url", srv.URL, "--api-key", srv.APIKey, "--api-secret", srv.Secret}
	run := startLineProc(t, ctx, append([]string{"run", "demo", "--room", srv.Room, "--headless", "--json", "--examiner", "offline",
		"--tts", "none", "--stt", "none", "--data-dir", dir, "--log-file", filepath.Join(dir, "run.log")}, creds...)...)
	watch := startLineProc(t, ctx, append([]string{"watch", "--room", srv.Room, "--json", "--commands", "--identity", "examiner-ana"}, creds...)...)
	ana := &presenceFeed{t: t, p: watch, json: true}

	cand, err := livekit.Dial(ctx, srv.URL, srv.Token("candidate-1", livekit.RoleCandidate))
	if err != nil {
		t.Fatal(err)
	}
	if err := cand.WaitBot(ctx); err != nil {
		t.Fatal(err)
	}
	ana.await(30*time.Second, "candidate candidate-1 joined")
	cand.Close()
	ana.await(30*time.Second, "candidate candidate-1 left (left the room)", "paused: candidate left")
	cand, err = livekit.Dial(ctx, srv.URL, srv.Token("candidate-1", livekit.RoleCandidate))
	if err != nil {
		t.Fatal(err)
	}
	defer cand.Close()
	ana.await(30*time.Second, "resumed: candidate rejoined")
	if _, err := io.WriteString(watch.stdin, "pause\n"); err != nil {
		t.Fatal(err)
	}
	ana.await(30*time.Second, "paused by examiner-ana")
	want := []string{
		"candidate candidate-1 joined",
		"candidate candidate-1 left (left the room)", "paused: candidate left",
		"candidate candidate-1 rejoined after", "resumed: candidate rejoined",
		"paused by examiner-ana",
	}
	same := func(who string, got []string) {
		t.Helper()
		ok := len(got) == len(want)
		for i := 0; ok && i < len(want); i++ {
			ok = got[i] == want[i] || (i == 3 && strings.HasPrefix(got[i], want[i]+" "))
		}
		if !ok {
			t.Fatalf("%s saw\n %q\nwant\n %q", who, got, want)
		}
	}
	same("the examiner watching", ana.lines)

	// A late examiner gets the same from the replay, in words.
	late := startLineProc(t, ctx, append([]string{"watch", "--room", srv.Room, "--plain", "--identity", "examiner-bo"}, creds...)...)
	bo := &presenceFeed{t: t, p: late}
	bo.await(30*time.Second, "paused by examiner-ana")
	same("the late examiner", bo.lines)

	// The examiner ends the exam; the bot stops and the session is in the store.
	if _, err := io.WriteString(watch.stdin, "end\n"); err != nil {
		t.Fatal(err)
	}
	for range run.lines {
	}
	_ = run.cmd.Wait()
	st, err := sessions.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 {
		st.Close()
		t.Fatalf("sessions: %v %v", list, err)
	}
	var stored []string
	for ev, err := range st.Events(ctx, list[0].ID, 1) {
		if err != nil {
			t.Fatal(err)
		}
		if s := app.PresenceSummary(ev); s != "" {
			stored = append(stored, s)
		}
	}
	st.Close()
	same("the store", stored)
	out, errOut, err := runCmd(t, "", "--data-dir", dir, "sessions", "show", list[0].ID, "--plain")
	if err != nil || !strings.Contains(out, "## Presence and pauses") || !strings.Contains(out, "paused by examiner-ana") ||
		!strings.Contains(out, "candidate candidate-1 left (left the room)") {
		t.Fatalf("sessions show: %v %s\n%s", err, errOut, out)
	}
}
