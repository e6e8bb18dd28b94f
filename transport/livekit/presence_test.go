package livekit_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// presenceLine is what a presence test compares: a candidate_presence summary, or who paused or
// resumed the exam.
func presenceLine(ev runtime.Event) (string, bool) {
	p, err := ev.Decode()
	if err != nil {
		return "", false
	}
	switch v := p.(type) {
	case *runtime.CandidatePresencePayload:
		return v.Summary(), true
	case *runtime.ExamStatePayload:
		s := v.PauseSummary()
		return s, s != ""
	}
	return "", false
}

// presenceWatcher reads an examiner's events and keeps the presence lines in order.
type presenceWatcher struct {
	t     *testing.T
	ch    <-chan runtime.Event
	lines []string
	all   []runtime.Event
}

// await reads until the presence lines end with want, or fails after d.
func (w *presenceWatcher) await(d time.Duration, want ...string) {
	w.t.Helper()
	deadline := time.After(d)
	for {
		if n := len(w.lines); n >= len(want) && slices.Equal(w.lines[n-len(want):], want) {
			return
		}
		select {
		case ev := <-w.ch:
			w.all = append(w.all, ev)
			if s, ok := presenceLine(ev); ok {
				w.lines = append(w.lines, s)
			}
		case <-deadline:
			w.t.Fatalf("after %s the examiner saw %q, want it to end with %q", d, w.lines, want)
		}
	}
}

// roomExam is a real controller with the offline examiner behind a bot in a real room, its
// events recorded as the store would have them.
func roomExam(t *testing.T, session string) (*exam, *runtime.Controller, *runtime.Recorder) {
	t.Helper()
	e := startExam(t)
	rec := &runtime.Recorder{}
	ctrl, fan := liveController(t, session, rec)
	e.serve(t, ctrl, fan)
	return e, ctrl, rec
}

// TestCandidatePresenceInRoom: a candidate joins, leaves and rejoins a real room; the examiner
// watching sees the three changes in order, with the exam paused while nobody is there and a
// pause from the examiner naming them. A participant that gave itself the candidate role is
// never reported.
func TestCandidatePresenceInRoom(t *testing.T) {
	e, ctrl, rec := roomExam(t, "presence-1")
	ctx := context.Background()
	exr := e.dial(t, "examiner-ana", livekit.RoleExaminer)
	joinHostile(t, e.srv, "self-declared", "candidate")
	cand := e.dial(t, "candidate-1", livekit.RoleCandidate)
	e.waitAudience(t, "candidate-1", "examiner-ana", "self-declared")
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	w := &presenceWatcher{t: t, ch: exr.Events()}
	w.await(15*time.Second, "candidate candidate-1 joined")

	cand.Close()
	w.await(15*time.Second, "candidate candidate-1 left (left the room)", "paused: candidate left")
	if s := ctrl.Snapshot(); s.State != runtime.StatePaused {
		t.Fatalf("state %s while the candidate is away", s.State)
	}

	e.dial(t, "candidate-1", livekit.RoleCandidate)
	w.await(15*time.Second, "resumed: candidate rejoined")

	if err := exr.SendControl(ctx, runtime.ControlPause); err != nil {
		t.Fatal(err)
	}
	w.await(15*time.Second, "paused by examiner-ana")

	want := []string{
		"candidate candidate-1 joined",
		"candidate candidate-1 left (left the room)", "paused: candidate left",
		"", // rejoined after some time
		"resumed: candidate rejoined",
		"paused by examiner-ana",
	}
	check := func(who string, got []string) {
		t.Helper()
		if len(got) != len(want) || !strings.HasPrefix(got[3], "candidate candidate-1 rejoined after ") {
			t.Fatalf("%s: %q", who, got)
		}
		got = slices.Clone(got)
		got[3] = ""
		if !slices.Equal(got, want) {
			t.Fatalf("%s:\n got %q\nwant %q", who, got, want)
		}
	}
	check("examiner", w.lines)
	var stored []string
	for _, ev := range rec.Events() {
		if s, ok := presenceLine(ev); ok {
			stored = append(stored, s)
		}
		if strings.Contains(string(ev.Payload), "self-declared") {
			t.Fatalf("the self-declared candidate was recorded: %s %s", ev.Event, ev.Payload)
		}
	}
	check("recorded", stored)
}

// candidateProcessEnv makes the test binary a candidate that joins and waits to be killed
// (TestMain), so a test can drop a candidate's connection the hard way.
const candidateProcessEnv = "EXAMTUI_TEST_CANDIDATE_PROCESS"

// runCandidateProcess joins the room named by the environment as a candidate, says "ready" on
// stdout, and waits for the end.
func runCandidateProcess() int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := livekit.Dial(ctx, os.Getenv("EXAMTUI_TEST_URL"), os.Getenv("EXAMTUI_TEST_TOKEN"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := c.WaitBot(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	<-ctx.Done()
	return 0
}

// startCandidateProcess runs a candidate in a process of its own (runCandidateProcess) and
// waits until it knows the bot, so a test can kill it the hard way: no leave reaches the server.
func startCandidateProcess(t *testing.T, e *exam, identity string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), candidateProcessEnv+"=1", "EXAMTUI_TEST_URL="+e.srv.URL,
		"EXAMTUI_TEST_TOKEN="+e.srv.Token(identity, livekit.RoleCandidate))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- strings.TrimSpace(line) == "ready"
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the candidate process did not join")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the candidate process did not join in 30 s")
	}
	return cmd
}

// TestCandidateConnectionDropped kills a candidate's process: no leave reaches the server, which
// notices the lost connection itself; the examiner sees the candidate leave for that reason and
// the exam pause.
func TestCandidateConnectionDropped(t *testing.T) {
	e, ctrl, _ := roomExam(t, "presence-2")
	ctx := context.Background()
	exr := e.dial(t, "examiner-ana", livekit.RoleExaminer)
	cmd := startCandidateProcess(t, e, "candidate-9")
	e.waitAudience(t, "candidate-9")
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	w := &presenceWatcher{t: t, ch: exr.Events()}
	w.await(15*time.Second, "candidate candidate-9 joined")
	killed := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// The server gives a silent client time to resume before it gives up on it.
	w.await(90*time.Second, "candidate candidate-9 left (connection lost)", "paused: candidate left")
	t.Logf("the candidate's lost connection was reported %s after the kill", time.Since(killed).Round(100*time.Millisecond))
}

// TestServerRestartIsNoLeave restarts the LiveKit server under a running exam: everyone
// reconnects, the candidate under a new participant id, and the bot saw no leave announced.
// That is one stay in the room: no presence change is recorded and the exam does not pause.
func TestServerRestartIsNoLeave(t *testing.T) {
	e, ctrl, rec := roomExam(t, "presence-3")
	ctx := context.Background()
	e.dial(t, "candidate-1", livekit.RoleCandidate)
	e.waitAudience(t, "candidate-1")
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	presence := func() []string {
		var out []string
		for _, ev := range rec.Events() {
			if s, ok := presenceLine(ev); ok {
				out = append(out, s)
			}
		}
		return out
	}
	testutil.Eventually(t, 15*time.Second, func() bool { return len(presence()) == 1 }, "the candidate to be recorded")
	e.srv.Restart()
	testutil.Eventually(t, 45*time.Second, func() bool {
		return e.bot.State() == livekit.StateConnected && e.bot.Candidate() == "candidate-1"
	}, "the bot and the candidate back in the room")
	time.Sleep(4 * 500 * time.Millisecond) // a few reconciliations (presencePoll) with the candidate back
	if got := presence(); !slices.Equal(got, []string{"candidate candidate-1 joined"}) {
		t.Fatalf("after the server restart the record says %q", got)
	}
	if s := ctrl.Snapshot(); s.State != runtime.StateInProgress {
		t.Fatalf("state %s after the server restart", s.State)
	}
}
