package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// crashScript is the hotel rehearsal (examples/hotel-rehearsal.yaml) with operator commands
// between the answers, so kills also land around pauses and queued instructions.
var crashScript = []string{
	"Hello, I'm Priya and I'm on the hospitality management course.",
	"Sorry, could you repeat the question?",
	"/pause",
	"/resume",
	"We could open a second buffet line, or another way is a grab-and-go counter.",
	"/queue Ask how the plan fits the budget.",
	"Most guests at that time are business travellers who are in a hurry.",
	"I would add two extra people on each lunch shift and adjust the rota.",
	"That raises the labour cost, but the conference revenue pays for it.",
}

var (
	crashVisits  = []string{"welcome", "scenario-hotel-breakfast", "scenario-staff-rota", "wrapup"}
	crashSignals = []string{"proposes_options", "analyses_clientele", "plans_staffing", "considers_budget"}
)

// The time between a kill and the resume; node timers must not count it.
const crashDowntime = 250 * time.Millisecond

// headlessProc is a real `examtui run --headless --json` process: the test writes its stdin
// and reads every event it prints.
type headlessProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr bytes.Buffer
	killAt int // SIGKILL as soon as this many events were read (0: never)

	mu      sync.Mutex
	printed []runtime.Event
	bad     []string // stdout lines that are not event envelopes
	notify  chan struct{}
	done    chan struct{} // stdout closed
}

func startHeadless(t *testing.T, bin string, killAt int, args ...string) *headlessProc {
	t.Helper()
	p := &headlessProc{t: t, killAt: killAt, notify: make(chan struct{}, 1), done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(os.Environ(), "OPENAI_BASE_URL=", "OPENAI_API_KEY=")
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.read(out)
	return p
}

func (p *headlessProc) read(out io.Reader) {
	defer close(p.done)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		var ev runtime.Event
		err := json.Unmarshal(sc.Bytes(), &ev)
		p.mu.Lock()
		if err != nil || ev.Seq == 0 {
			p.bad = append(p.bad, sc.Text())
		} else {
			p.printed = append(p.printed, ev)
		}
		n := len(p.printed)
		p.mu.Unlock()
		if p.killAt > 0 && n == p.killAt {
			p.kill()
		}
		select {
		case p.notify <- struct{}{}:
		default:
		}
	}
}

func (p *headlessProc) kill() { _ = p.cmd.Process.Signal(syscall.SIGKILL) }

func (p *headlessProc) events() []runtime.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.printed)
}

// waitEvent waits until an event printed after the first `after` ones satisfies match, or
// stdout closes, or the timeout passes; it reports whether one did.
func (p *headlessProc) waitEvent(after int, match func(runtime.Event) bool, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		evs := p.events()
		for _, ev := range evs[min(after, len(evs)):] {
			if match(ev) {
				return true
			}
		}
		select {
		case <-p.notify:
		case <-p.done:
			evs := p.events()
			return slices.ContainsFunc(evs[min(after, len(evs)):], match)
		case <-deadline:
			return false
		}
	}
}

// waitQuiet waits until nothing was printed for d (or stdout closed); a process that never
// falls quiet within 30 s fails the test.
func (p *headlessProc) waitQuiet(d time.Duration) {
	p.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case <-p.notify:
		case <-p.done:
			return
		case <-time.After(d):
			return
		case <-deadline:
			p.t.Fatalf("the process printed without a pause of %s for 30 s", d)
		}
	}
}

// wait reaps the process; killed reports death by SIGKILL, code the exit status otherwise.
func (p *headlessProc) wait(timeout time.Duration) (killed bool, code int) {
	p.t.Helper()
	exited := make(chan error, 1)
	go func() {
		<-p.done
		exited <- p.cmd.Wait()
	}()
	var err error
	select {
	case err = <-exited:
	case <-time.After(timeout):
		// SIGQUIT makes the Go runtime write every goroutine's stack to stderr: the report
		// then says where the process hung.
		_ = p.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			p.kill()
			<-exited
		}
		p.t.Fatalf("examtui did not exit within %v; stderr:\n%s", timeout, p.stderr.String())
	}
	ws, _ := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		return true, -1
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		p.t.Fatal(err)
	}
	return false, p.cmd.ProcessState.ExitCode()
}

func (p *headlessProc) write(line string) {
	// A killed process closes the pipe: the write fails, which is expected.
	_, _ = io.WriteString(p.stdin, line+"\n")
}

// marker recognises the event that shows a script line was applied.
func marker(line string) func(runtime.Event) bool {
	switch {
	case line == "/pause" || line == "/resume":
		// The state change, not the instruction's record: a cut between the two leaves the
		// exam as it was, and the operator says it again.
		want, reason := runtime.StatePaused, "paused by console"
		if line == "/resume" {
			want, reason = runtime.StateInProgress, "resumed by console"
		}
		return func(ev runtime.Event) bool {
			s, ok := decodeAs[*runtime.ExamStatePayload](ev)
			return ok && s.State == want && strings.HasPrefix(s.Reason, reason)
		}
	case strings.HasPrefix(line, "/queue "):
		return func(ev runtime.Event) bool {
			a, ok := decodeAs[*runtime.AdminInstructionPayload](ev)
			return ok && a.Mode == "queued" && a.Status == "received" && a.Text == line[len("/queue "):]
		}
	}
	return func(ev runtime.Event) bool {
		s, ok := decodeAs[*runtime.TranscriptSegmentPayload](ev)
		return ok && s.Speaker == "candidate" && s.Text == line
	}
}

func decodeAs[P runtime.Payload](ev runtime.Event) (P, bool) {
	var zero P
	p, err := ev.Decode()
	if err != nil {
		return zero, false
	}
	v, ok := p.(P)
	return v, ok
}

// killPlan says when one iteration kills the process.
type killPlan struct {
	afterEvents int           // kill once this many events were read (mode "events")
	afterLine   int           // or this long after writing line afterLine (mode "line")
	delay       time.Duration // mode "line" and "start"
	mode        string
}

func (k killPlan) String() string {
	switch k.mode {
	case "events":
		return fmt.Sprintf("after %d printed events", k.afterEvents)
	case "line":
		return fmt.Sprintf("%v after writing line %d %q", k.delay, k.afterLine+1, crashScript[k.afterLine])
	}
	return fmt.Sprintf("%v after the process started", k.delay)
}

// newKillPlan picks iteration i's kill; fullRun is how many events an uninterrupted run prints
// and startup how long it took to print the first.
func newKillPlan(rng *rand.Rand, i, fullRun int, startup time.Duration) killPlan {
	switch i % 3 {
	case 0:
		return killPlan{mode: "events", afterEvents: 1 + rng.IntN(fullRun-1)}
	case 1:
		return killPlan{mode: "line", afterLine: rng.IntN(len(crashScript)), delay: time.Duration(rng.IntN(1000)) * time.Microsecond}
	}
	return killPlan{mode: "start", delay: time.Duration(rng.Int64N(int64(startup) * 3 / 2))}
}

// spin waits d precisely (a timer's granularity is too coarse for landing inside a turn).
func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

// TestHeadlessCrashResume kills a real `examtui run --headless --json` at random points of a
// scripted exam (seeded: EXAMTUI_CRASH_SEED repeats a run) and checks the store after each
// kill: everything printed is stored as printed, seq has no gaps, the session is interrupted.
// Then `run --resume` finishes the exam, and the whole stream shows the state carried over:
// visits, evidence, follow-up counts, queued instructions and node timers that skip the downtime.
//
// It runs on both engines: SQLite in each iteration's data directory, and PostgreSQL (a new
// database per iteration, named to every process through $EXAMTUI_STORE).
func TestHeadlessCrashResume(t *testing.T) {
	for _, engine := range []sessions.Engine{sessions.EngineSQLite, sessions.EnginePostgres} {
		t.Run(engine.String(), func(t *testing.T) { testHeadlessCrashResume(t, engine) })
	}
}

// useEngine points every examtui process the test starts, and loadChecked, at a fresh store
// of the engine: PostgreSQL through $EXAMTUI_STORE, SQLite through --data-dir as before.
func useEngine(t *testing.T, engine sessions.Engine) {
	if engine == sessions.EnginePostgres {
		t.Setenv(sessions.EnvStore, pgtest.NewDB(t))
	}
}

func testHeadlessCrashResume(t *testing.T, engine sessions.Engine) {
	bin := examtuiBinary(t)
	iterations := 25
	if testing.Short() {
		iterations = 6
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("EXAMTUI_CRASH_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("EXAMTUI_CRASH_SEED: %v", err)
		}
	}
	t.Logf("seed %d (repeat with EXAMTUI_CRASH_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	root := t.TempDir()

	useEngine(t, engine)
	fullRun, startup := crashReference(t, bin, filepath.Join(root, "reference"))
	t.Logf("an uninterrupted run prints %d events, the first %v after the process starts", fullRun, startup)
	killed, midTurn := 0, 0
	for i := range iterations {
		plan := newKillPlan(rng, i, fullRun, startup)
		dir := filepath.Join(root, fmt.Sprintf("run%02d", i))
		useEngine(t, engine)
		r := crashIteration(t, bin, dir, plan)
		if r.killed {
			killed++
		}
		if r.midTurn {
			midTurn++
		}
		t.Logf("iteration %2d: kill %s: %d printed, %d stored, last stored %s%s; resumed with %d lines → %d events",
			i, plan, r.printed, r.stored, r.lastStored, map[bool]string{true: " (mid-turn)"}[r.midTurn], r.resent, r.final)
		if t.Failed() {
			t.Fatalf("iteration %d failed (seed %d)", i, seed)
		}
	}
	t.Logf("%d of %d iterations killed the process (%d mid-turn)", killed, iterations, midTurn)
	if killed < iterations*3/4 {
		t.Errorf("only %d of %d kills landed before the exam ended", killed, iterations)
	}
}

// crashReference runs the script uninterrupted and returns how many events it prints and how
// long the first took.
func crashReference(t *testing.T, bin, dir string) (int, time.Duration) {
	evs, startup := runCrashScript(t, "reference run", bin, dir)
	checkCompletedStream(t, evs, 0)
	return len(evs), startup
}

// runCrashScript runs the crash script uninterrupted with the real binary (`run demo --headless
// --json`, data directory dir) and returns the events it printed and how long the first took.
func runCrashScript(t *testing.T, what, bin, dir string) ([]runtime.Event, time.Duration) {
	t.Helper()
	start := time.Now()
	p := startHeadless(t, bin, 0, "--data-dir", dir, "run", "demo", "--headless", "--json")
	if !p.waitEvent(0, func(runtime.Event) bool { return true }, 30*time.Second) {
		t.Fatalf("%s printed nothing; stderr:\n%s", what, p.stderr.String())
	}
	startup := time.Since(start)
	for _, line := range crashScript {
		p.write(line)
	}
	_ = p.stdin.Close()
	if killed, code := p.wait(30 * time.Second); killed || code != 0 {
		t.Fatalf("%s: exit %d; stderr:\n%s", what, code, p.stderr.String())
	}
	return p.events(), startup
}

type iterationResult struct {
	killed, midTurn bool
	printed, stored int
	lastStored      string
	resent, final   int
}

func crashIteration(t *testing.T, bin, dir string, plan killPlan) iterationResult {
	t.Helper()
	var res iterationResult
	p := startHeadless(t, bin, plan.afterEvents, "--data-dir", dir, "run", "demo", "--headless", "--json")
	if plan.mode == "start" {
		spin(plan.delay)
		p.kill()
	} else {
		// Wait for the opening question, then answer like a person: one line, its effect, a pause.
		p.waitEvent(0, func(ev runtime.Event) bool { return ev.Seq >= 8 }, 10*time.Second)
		for i, line := range crashScript {
			n := len(p.events())
			p.write(line)
			if plan.mode == "line" && i == plan.afterLine {
				spin(plan.delay)
				p.kill()
				break
			}
			if !p.waitEvent(n, marker(line), 5*time.Second) {
				break // killed (mode "events") or refused
			}
			p.waitQuiet(3 * time.Millisecond)
		}
	}
	wasKilled, code := p.wait(10 * time.Second)
	res.killed = wasKilled
	printed := p.events()
	res.printed = len(printed)
	if len(p.bad) > 0 {
		t.Errorf("stdout lines that are not events: %q", p.bad)
	}
	if !wasKilled {
		// The exam finished before the kill landed: it must have completed cleanly.
		if code != 0 {
			t.Errorf("exit %d without a kill; stderr:\n%s", code, p.stderr.String())
		}
		checkCompletedStream(t, printed, 0)
		return res
	}

	id, interrupted := sessionAfterKill(t, bin, dir, printed)
	if id == "" {
		return res // killed before the session was created: nothing was shown, nothing to resume
	}
	if !interrupted {
		// The kill landed after the exam ended (exam_completed may be lost with it).
		res.killed = false
		all := loadChecked(t, dir, id, sessions.StatusCompleted, printed)
		res.stored, res.final = len(all), len(all)
		if all[len(all)-1].Event == runtime.EventExamCompleted {
			checkCompletedStream(t, all, 0)
		} else if !endedAt(all) {
			t.Errorf("session listed completed, but its last event is %s", all[len(all)-1].Event)
		}
		return res
	}
	stored := loadChecked(t, dir, id, sessions.StatusInterrupted, printed)
	res.stored = len(stored)
	if len(stored) > 0 {
		res.lastStored = string(stored[len(stored)-1].Event)
	}
	remaining, midTurn := remainingLines(stored)
	res.midTurn, res.resent = midTurn, len(remaining)

	time.Sleep(crashDowntime)
	q := startHeadless(t, bin, 0, "--data-dir", dir, "run", "--resume", id[:8], "--headless", "--json")
	for _, line := range remaining {
		q.write(line)
	}
	_ = q.stdin.Close()
	if killed, code := q.wait(30 * time.Second); killed || code != 0 {
		t.Fatalf("resumed run: exit %d; stderr:\n%s", code, q.stderr.String())
	}
	if len(q.bad) > 0 {
		t.Errorf("resumed run: stdout lines that are not events: %q", q.bad)
	}
	resumed := q.events()
	for _, ev := range resumed {
		if ev.SessionID != id {
			t.Fatalf("resumed run printed seq %d of session %s, want %s", ev.Seq, ev.SessionID, id)
		}
	}
	if len(stored) > 0 {
		checkResumeOpening(t, stored, resumed)
	}
	all := loadChecked(t, dir, id, sessions.StatusCompleted, printed)
	checkPrinted(t, all, resumed, int64(len(stored))+1)
	res.final = len(all)
	checkCompletedStream(t, all, int64(len(stored)))
	return res
}

// sessionAfterKill asks the real binary for the sessions in dir: a killed run's session must
// be listed as interrupted (its stale owner lock detected), or completed when the kill came
// after the end. It returns the id, or "" when the process died before creating one.
func sessionAfterKill(t *testing.T, bin, dir string, printed []runtime.Event) (id string, interrupted bool) {
	t.Helper()
	var rows []sessions.ListRow
	// A PostgreSQL server drops a killed owner's lease when it sees the connection close,
	// a moment after the process is reaped: a session still listed running is listed again.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, err := exec.Command(bin, "--data-dir", dir, "sessions", "list", "--json").Output()
		if err != nil {
			t.Fatalf("sessions list: %v", err)
		}
		rows = nil
		if err := json.Unmarshal(out, &rows); err != nil {
			t.Fatalf("sessions list --json: %v\n%s", err, out)
		}
		if len(rows) != 1 || rows[0].Status != sessions.StatusRunning.String() || time.Now().After(deadline) {
			break
		}
	}
	if len(rows) == 0 {
		if len(printed) > 0 {
			t.Fatalf("%d events printed but no session stored", len(printed))
		}
		return "", false
	}
	if len(rows) == 1 && rows[0].Status == sessions.StatusCompleted.String() {
		return rows[0].ID, false // the kill landed after the exam completed
	}
	if len(rows) != 1 || rows[0].Status != sessions.StatusInterrupted.String() || !rows[0].Interrupted {
		t.Fatalf("after the kill, sessions list shows %+v, want one interrupted session", rows)
	}
	if len(printed) > 0 && printed[0].SessionID != rows[0].ID {
		t.Fatalf("printed session %s, stored %s", printed[0].SessionID, rows[0].ID)
	}
	return rows[0].ID, true
}

// loadChecked opens the store, checks the session's status, that its seq is gap-free from 1,
// and that every printed event is stored exactly as printed; it returns the stored events.
func loadChecked(t *testing.T, dir, id string, want sessions.Status, printed []runtime.Event) []runtime.Event {
	t.Helper()
	ctx := context.Background()
	st, err := sessions.OpenURL(ctx, app.StoreTarget("", dir))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.LoadEvents(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Status() != want {
		t.Errorf("session %s is %s, want %s", id, sess.Status(), want)
	}
	if sess.EventCount != int64(len(stored)) {
		t.Errorf("session says %d events, the store holds %d", sess.EventCount, len(stored))
	}
	for k, ev := range stored {
		if ev.Seq != int64(k+1) {
			t.Fatalf("stored seq gap: position %d holds seq %d", k+1, ev.Seq)
		}
	}
	checkPrinted(t, stored, printed, 1)
	return stored
}

// checkPrinted checks that printed runs gap-free from seq first and that each printed event is
// stored exactly as printed.
func checkPrinted(t *testing.T, stored, printed []runtime.Event, first int64) {
	t.Helper()
	for k, ev := range printed {
		if ev.Seq != first+int64(k) {
			t.Fatalf("printed seq %d at position %d (first %d): a gap or a duplicate on stdout", ev.Seq, k, first)
		}
		if ev.Seq > int64(len(stored)) {
			t.Fatalf("seq %d (%s) was printed but is not stored (%d stored)", ev.Seq, ev.Event, len(stored))
		}
		s := stored[ev.Seq-1]
		if s.Event != ev.Event || s.SessionID != ev.SessionID || !s.Timestamp.Equal(ev.Timestamp) || !sameJSON(s.Payload, ev.Payload) {
			t.Fatalf("seq %d printed as %s %s %s, stored as %s %s %s", ev.Seq, ev.Event, ev.Timestamp, ev.Payload, s.Event, s.Timestamp, s.Payload)
		}
	}
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// remainingLines is what a resumed run is fed: the script lines whose effect is not stored,
// starting again at an answer whose turn was cut before the examiner spoke (the candidate
// answers again after "let's continue where we left off").
func remainingLines(stored []runtime.Event) (lines []string, midTurn bool) {
	next, pos := 0, 0
	lastAnswer, lastAnswerPos := -1, -1
	for next < len(crashScript) {
		at := slices.IndexFunc(stored[pos:], marker(crashScript[next]))
		if at < 0 {
			break
		}
		pos += at + 1
		if !strings.HasPrefix(crashScript[next], "/") {
			lastAnswer, lastAnswerPos = next, pos
		}
		next++
	}
	if lastAnswer >= 0 {
		spoken := slices.ContainsFunc(stored[lastAnswerPos:], func(ev runtime.Event) bool { return ev.Event == runtime.EventSpoken })
		completed := slices.ContainsFunc(stored, func(ev runtime.Event) bool { return ev.Event == runtime.EventExamCompleted })
		if !spoken && !completed {
			return crashScript[lastAnswer:], true
		}
	}
	return crashScript[next:], false
}

// checkResumeOpening: a resumed session picks up where its log ends. Cut while running in a
// node, it re-asks that node's question; cut in the middle of a transition (node_exit stored,
// node_entered not), it enters the next node; cut in an end node, it finishes the exam.
func checkResumeOpening(t *testing.T, stored, resumed []runtime.Event) {
	t.Helper()
	var (
		state    = runtime.StateCreated
		node     string
		endNode  bool
		cutExit  *runtime.NodeExitPayload
		question string
		settled  []runtime.AdminInstructionPayload // carried by stored lines, their events not stored
		lastSeg  string                            // the last candidate segment with words
	)
	for _, ev := range stored {
		p, _ := ev.Decode()
		switch p := p.(type) {
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker == runtime.SpeakerCandidate && p.IsFinal && p.Text != "" {
				lastSeg = p.SegmentID
			}
		case *runtime.ObservationPayload:
			settled = append(settled, p.Settles...)
		case *runtime.AdminInstructionPayload:
			if i := slices.IndexFunc(settled, func(s runtime.AdminInstructionPayload) bool { return s.Text == p.Text && s.Status == p.Status }); i >= 0 {
				settled = slices.Delete(settled, i, i+1)
			}
		case *runtime.ExamStatePayload:
			state = p.State
		case *runtime.NodeEnteredPayload:
			node, endNode, cutExit = p.NodeID, p.Kind == "end", nil
		case *runtime.NodeExitPayload:
			cutExit = p
		case *runtime.SpokenPayload:
			settled = append(settled, p.Settles...)
			if p.Source == "prompt" || p.Source == "examiner" || p.Source == "command" {
				question = p.Text
			}
		}
	}
	if state != runtime.StateInProgress || node == "" || len(resumed) == 0 {
		return
	}
	// Cut during the examiner's call on the candidate's words: they are recorded not assessed
	// (restarted) first, and the candidate says them again.
	if r, ok := decodeAs[*runtime.RecoveryPayload](resumed[0]); ok && r.Kind == runtime.RecoveryNotAssessed {
		if r.Reason != runtime.NotAssessedRestarted || r.SegmentID != lastSeg {
			t.Errorf("the resumed run opened with %s %s, want restarted naming %s", resumed[0].Event, resumed[0].Payload, lastSeg)
		}
		resumed = resumed[1:]
	}
	// A queued instruction settled by a stored line whose admin_instruction event was lost
	// with the process: the resume records that event first, as the uninterrupted exam did,
	// marked as the resumed process's (afterRestart).
	for _, want := range settled {
		want.AfterRestart = true
		got, ok := decodeAs[*runtime.AdminInstructionPayload](resumed[0])
		if !ok || !reflect.DeepEqual(*got, want) {
			t.Errorf("the resumed run opened with %s %s, want the settle %+v its stored line carried", resumed[0].Event, resumed[0].Payload, want)
			return
		}
		resumed = resumed[1:]
	}
	if len(resumed) == 0 {
		return
	}
	first := resumed[0]
	switch {
	case cutExit != nil && cutExit.Next != "":
		if p, ok := decodeAs[*runtime.NodeEnteredPayload](first); !ok || p.NodeID != cutExit.Next || p.From != cutExit.NodeID {
			t.Errorf("cut after leaving %s for %s, the resumed run opened with %s %s", cutExit.NodeID, cutExit.Next, first.Event, first.Payload)
		}
	case cutExit != nil:
		if p, ok := decodeAs[*runtime.ExamStatePayload](first); !ok || !p.State.Terminal() {
			t.Errorf("cut after the last node's exit, the resumed run opened with %s %s", first.Event, first.Payload)
		}
	case endNode:
		if p, ok := decodeAs[*runtime.NodeExitPayload](first); !ok || p.NodeID != node {
			t.Errorf("cut in end node %s, the resumed run opened with %s %s", node, first.Event, first.Payload)
		}
	case question != "":
		sp, ok := decodeAs[*runtime.SpokenPayload](first)
		if !ok || sp.Source != "resume" || sp.NodeID != node || !strings.HasPrefix(sp.Text, "Let's continue where we left off.") {
			t.Errorf("the resumed run opened with %s %s, want the resume line in %s", first.Event, first.Payload, node)
		}
	}
}

// checkCompletedStream checks a whole completed session: the exam completed through every node
// once, with the script's evidence; follow-up counts run 1, 2, … within each node visit;
// queued instructions are consumed; each node's timer counts only the time the exam was
// running, not the downtime after seq crashSeq (0: no crash).
func checkCompletedStream(t *testing.T, evs []runtime.Event, crashSeq int64) {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	done, ok := decodeAs[*runtime.ExamCompletedPayload](evs[len(evs)-1])
	if !ok || done.State != runtime.StateCompleted {
		t.Fatalf("last event %s %s, want exam_completed completed", evs[len(evs)-1].Event, evs[len(evs)-1].Payload)
	}
	if !slices.Equal(done.NodesVisited, crashVisits) {
		t.Errorf("visited %v, want %v", done.NodesVisited, crashVisits)
	}
	for _, s := range crashSignals {
		if done.Evidence[s] < 1 {
			t.Errorf("evidence %v lacks %s", done.Evidence, s)
		}
	}

	var (
		node                  string
		followUps             int
		received, consumed    int
		running, nodeActive   bool
		examRunning           bool
		since, lastTs         time.Time
		acc                   time.Duration
		enteredSeq            int64
		nodeEntries, nodeExit = map[string]int{}, map[string]int{}
	)
	for _, ev := range evs {
		ts := ev.Timestamp
		if crashSeq > 0 && ev.Seq == crashSeq+1 && running {
			// The dead process's clock stopped at its last stored event; the resumed one
			// restarted it at its first event.
			acc += lastTs.Sub(since)
			since = ts
		}
		lastTs = ts
		p, err := ev.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch p := p.(type) {
		case *runtime.ExamStatePayload:
			switch {
			case p.State == runtime.StateInProgress:
				if nodeActive && !running {
					since, running = ts, true
				}
				examRunning = true
			case p.State == runtime.StatePaused || p.State.Terminal():
				if running {
					acc += ts.Sub(since)
					running = false
				}
				examRunning = false
			}
		case *runtime.NodeEnteredPayload:
			if nodeActive {
				t.Errorf("seq %d: entered %s while %s was not exited", ev.Seq, p.NodeID, node)
			}
			node, followUps, nodeActive, acc = p.NodeID, 0, true, 0
			running, since, enteredSeq = examRunning, ts, ev.Seq
			nodeEntries[p.NodeID]++
		case *runtime.NodeExitPayload:
			if !nodeActive || p.NodeID != node {
				t.Errorf("seq %d: exit from %s, but the current node is %q (active %v)", ev.Seq, p.NodeID, node, nodeActive)
				continue
			}
			nodeExit[p.NodeID]++
			want := acc
			if running {
				want += ts.Sub(since)
			}
			got := time.Duration(p.ElapsedMs) * time.Millisecond
			// Every clock change is stamped on the event that records it, so the events'
			// timestamps account for the timer exactly, however busy the machine; elapsedMs
			// is truncated to the millisecond.
			if diff := want - got; diff < 0 || diff >= time.Millisecond {
				t.Errorf("node %s (entered at seq %d, crash after seq %d): timer says %v, the exam ran %v in it",
					p.NodeID, enteredSeq, crashSeq, got, want)
			}
			nodeActive, running = false, false
		case *runtime.FollowUpIssuedPayload:
			followUps++
			if p.Count != followUps || p.NodeID != node {
				t.Errorf("seq %d: follow-up %d in %s, want %d in %s", ev.Seq, p.Count, p.NodeID, followUps, node)
			}
		case *runtime.AdminInstructionPayload:
			if p.Mode == "queued" && p.Status == "received" {
				received++
			}
			if p.Mode == "queued" && p.Status == "consumed" {
				consumed++
			}
		}
	}
	// A queued instruction is settled with the line that carried it out (its settle is in that
	// line's event): at every cut, the resumed exam holds it consumed once, as the uninterrupted
	// one does.
	if received != 1 || consumed != 1 {
		t.Errorf("queued instruction received %d times, consumed %d times, want 1 and 1", received, consumed)
	}
	for _, n := range crashVisits {
		if nodeEntries[n] != 1 || nodeExit[n] != 1 {
			t.Errorf("node %s entered %d and exited %d times", n, nodeEntries[n], nodeExit[n])
		}
	}
}

// TestResumeAtEveryCut resumes a recorded exam cut after every one of its events in turn (the
// store as a kill at that point leaves it), running the resume in-process with the answers the
// store shows are missing: every cut must continue gap-free to a completed exam with the state
// carried over.
func TestResumeAtEveryCut(t *testing.T) {
	bin := examtuiBinary(t)
	src := t.TempDir()
	full := recordHeadless(t, bin, src)
	ctx := context.Background()
	st, err := sessions.Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := st.Get(ctx, full[0].SessionID)
	if err != nil {
		t.Fatal(err)
	}
	exam, err := sess.Exam()
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	for cut := 1; cut < len(full); cut++ {
		t.Run(fmt.Sprintf("after_seq_%02d_%s", cut, full[cut-1].Event), func(t *testing.T) {
			dir := t.TempDir()
			cutStore(t, dir, sess.ID, exam, full[:cut])
			if endedAt(full[:cut]) {
				// Cut after the terminal exam_state: the session has ended (its summary event
				// is lost with the process) and is not resumable.
				_, _, err := runCmdTimeout(t, 10*time.Second, "", "--data-dir", dir, "run", "--resume", sess.ID, "--headless")
				if !errors.Is(err, sessions.ErrSessionEnded) {
					t.Fatalf("resume of a session cut after its end: %v", err)
				}
				loadChecked(t, dir, sess.ID, sessions.StatusCompleted, full[:cut])
				return
			}
			lines, _ := remainingLines(full[:cut])
			stdin := strings.Join(lines, "\n")
			out, errOut, err := runCmdTimeout(t, 10*time.Second, stdin, "--data-dir", dir, "run", "--resume", sess.ID, "--headless", "--json")
			if err != nil {
				t.Fatalf("resume after seq %d: %v\nstderr:\n%s", cut, err, errOut)
			}
			var resumed []runtime.Event
			for l := range strings.Lines(out) {
				var ev runtime.Event
				if err := json.Unmarshal([]byte(l), &ev); err != nil {
					t.Fatalf("stdout line %q: %v", l, err)
				}
				resumed = append(resumed, ev)
			}
			all := loadChecked(t, dir, sess.ID, sessions.StatusCompleted, full[:cut])
			checkPrinted(t, all, resumed, int64(cut)+1)
			checkResumeOpening(t, full[:cut], resumed)
			checkCompletedStream(t, all, int64(cut))
			if err := runtimetest.CheckAssessedOnce(all); err != nil {
				t.Errorf("after the cut after seq %d: %v", cut, err)
			}
		})
	}
}

// cutStore writes a session holding only events into a new store in dir, as a crash after the
// last of them leaves it.
func cutStore(t *testing.T, dir, id string, exam *spec.Exam, events []runtime.Event) {
	t.Helper()
	ctx := context.Background()
	st, err := sessions.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Create(ctx, sessions.Meta{ID: id, Exam: exam, Examiner: "offline", Input: runtime.SourceTyped,
		StartedAt: events[0].Timestamp}); err != nil {
		t.Fatal(err)
	}
	j, err := st.Journal(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if err := j.Publish(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// runCmdTimeout runs the command in-process like runCmd, cancelled (as by SIGINT) after d, so
// an exam that never ends fails the test instead of hanging it.
func runCmdTimeout(t *testing.T, d time.Duration, stdin string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return runCmdContext(ctx, stdin, args...)
}

// endedAt reports whether events hold a terminal exam_state: the store then counts the session
// as ended, whether or not exam_completed made it.
func endedAt(events []runtime.Event) bool {
	return slices.ContainsFunc(events, func(ev runtime.Event) bool {
		p, ok := decodeAs[*runtime.ExamStatePayload](ev)
		return ok && p.State.Terminal()
	})
}
