package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/cmd/examtui/internal/worker"
	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/transport/livekit"
)

const e2eAgent = "examtui-e2e"

// workerProc is one `examtui worker` process; its JSON logs are kept.
type workerProc struct {
	t    testing.TB
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error

	mu   sync.Mutex
	logs []map[string]any
}

// pool is a LiveKit server, a spec directory and a shared data directory for workers, or a
// shared PostgreSQL store (pgURL) with a data directory of its own for each worker, as on
// separate machines.
type pool struct {
	t     testing.TB
	srv   *lktest.Server
	bin   string
	specs string
	data  string
	pgURL string
	env   []string // more environment for the workers (an STT server's OPENAI_*)
}

// storeTarget is the store the pool's workers share.
func (p *pool) storeTarget() string {
	if p.pgURL != "" {
		return p.pgURL
	}
	return p.data
}

// storeArgs are a worker's store flags.
func (p *pool) storeArgs() []string {
	if p.pgURL != "" {
		return []string{"--data-dir", p.t.TempDir(), "--store", p.pgURL}
	}
	return []string{"--data-dir", p.data}
}

func newPool(t testing.TB) *pool {
	srv := lktest.Start(t)
	specs := t.TempDir()
	if err := os.WriteFile(filepath.Join(specs, "hotel.yaml"), examples.Demo(), 0o600); err != nil {
		t.Fatal(err)
	}
	return &pool{t: t, srv: srv, bin: examtuiBinaryTB(t), specs: specs, data: t.TempDir()}
}

func (p *pool) startWorker(name string, extra ...string) *workerProc {
	t := p.t
	t.Helper()
	args := append([]string{"worker", "--url", p.srv.URL, "--api-key", p.srv.APIKey, "--api-secret", p.srv.Secret,
		"--agent-name", e2eAgent, "--specs", p.specs, "--log-file", "-", "--json",
		"--examiner", "offline", "--stt", "none", "--tts", "none"}, append(p.storeArgs(), extra...)...)
	cmd := exec.Command(p.bin, args...)
	cmd.Env = append(append(os.Environ(), "OPENAI_API_KEY=", "OPENAI_BASE_URL="), p.env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProc{t: t, name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				w.mu.Lock()
				w.logs = append(w.logs, m)
				w.mu.Unlock()
			}
		}
		w.err = cmd.Wait()
		close(w.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-w.done
		if t.Failed() {
			t.Logf("worker %s log tail:\n%s", name, w.tail(40))
		}
	})
	testutil.Eventually(t, 30*time.Second, func() bool { return w.count("agent worker registered") >= 1 }, name+" to register")
	return w
}

// count is the number of log lines with this message (and, when given, these attributes).
func (w *workerProc) count(msg string, attrs ...string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, m := range w.logs {
		if m["msg"] != msg {
			continue
		}
		ok := true
		for i := 0; i+1 < len(attrs); i += 2 {
			if fmt.Sprint(m[attrs[i]]) != attrs[i+1] {
				ok = false
			}
		}
		if ok {
			n++
		}
	}
	return n
}

// find lists the log lines with this message ("": every line).
func (w *workerProc) find(msg string) []map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []map[string]any
	for _, m := range w.logs {
		if msg == "" || m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

func (w *workerProc) tail(n int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for _, m := range w.logs[max(0, len(w.logs)-n):] {
		line, _ := json.Marshal(m)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func (w *workerProc) exited() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// dispatchExam runs `examtui dispatch` in-process (extra: more flags, such as --wait 0 for a
// dispatch no worker is expected to take).
func (p *pool) dispatchExam(room, spec, candidate string, extra ...string) {
	p.t.Helper()
	if out, errOut, err := p.tryDispatch(room, spec, candidate, extra...); err != nil || !strings.HasPrefix(out, "AD_") {
		p.t.Fatalf("dispatch %s: %v\n%s%s", room, err, out, errOut)
	}
}

// tryDispatch runs `examtui dispatch` in-process and returns what it printed and its error.
func (p *pool) tryDispatch(room, spec, candidate string, extra ...string) (out, errOut string, err error) {
	args := append([]string{"dispatch", "--url", p.srv.URL, "--api-key", p.srv.APIKey, "--api-secret", p.srv.Secret,
		"--agent-name", e2eAgent, "--room", room, "--spec", spec, "--candidate", candidate}, extra...)
	return runCmdContext(context.Background(), "", args...)
}

// candidate is a typed-answer candidate in a room.
type candidate struct {
	t       testing.TB
	room    string
	c       *livekit.Client
	mu      sync.Mutex
	evs     map[int64]runtime.Event
	at      map[int64]time.Time // when each event arrived
	max     int64
	replies []time.Duration // answer sent → the examiner's next words arrived
	think   time.Duration   // pause before each answer, as a person would
	notify  chan struct{}
	closed  sync.Once
	stop    context.CancelFunc
	done    chan struct{}
}

func (p *pool) join(room, identity string) *candidate {
	t := p.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := livekit.Dial(ctx, p.srv.URL, p.srv.RoomToken(room, identity, livekit.RoleCandidate))
	if err != nil {
		t.Fatalf("candidate %s: %v", room, err)
	}
	return listenAs(t, room, c)
}

// listenAs keeps every event the candidate receives.
func listenAs(t testing.TB, room string, c *livekit.Client) *candidate {
	lctx, stop := context.WithCancel(context.Background())
	cd := &candidate{t: t, room: room, c: c, evs: map[int64]runtime.Event{}, at: map[int64]time.Time{},
		notify: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	go func() {
		defer close(cd.done)
		for {
			select {
			case <-lctx.Done():
				return
			case ev := <-c.Events():
				cd.mu.Lock()
				cd.evs[ev.Seq] = ev
				cd.at[ev.Seq] = time.Now()
				cd.max = max(cd.max, ev.Seq)
				cd.mu.Unlock()
				select {
				case cd.notify <- struct{}{}:
				default:
				}
			}
		}
	}()
	t.Cleanup(cd.close)
	return cd
}

func (cd *candidate) close() {
	cd.closed.Do(func() {
		cd.stop()
		<-cd.done
		cd.c.Close()
	})
}

func (cd *candidate) maxSeq() int64 {
	cd.mu.Lock()
	defer cd.mu.Unlock()
	return cd.max
}

// has reports whether an event of this type, containing text, was received after seq.
func (cd *candidate) has(after int64, typ runtime.EventType, text string) bool {
	_, ok := cd.first(after, typ, text)
	return ok
}

// first is the arrival of the earliest such event after seq.
func (cd *candidate) first(after int64, typ runtime.EventType, text string) (time.Time, bool) {
	return cd.firstMatch(after, func(ev runtime.Event) bool {
		return ev.Event == typ && strings.Contains(string(ev.Payload), text)
	})
}

// firstMatch is the arrival of the earliest matching event after seq.
func (cd *candidate) firstMatch(after int64, match func(runtime.Event) bool) (time.Time, bool) {
	cd.mu.Lock()
	defer cd.mu.Unlock()
	var at time.Time
	for s, ev := range cd.evs {
		if s > after && match(ev) && (at.IsZero() || cd.at[s].Before(at)) {
			at = cd.at[s]
		}
	}
	return at, !at.IsZero()
}

// waitEvent waits for an event of this type after seq and returns when it arrived.
func (cd *candidate) waitEvent(after int64, typ runtime.EventType, text string, timeout time.Duration) (time.Time, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if at, ok := cd.first(after, typ, text); ok {
			return at, nil
		}
		select {
		case <-cd.notify:
		case <-deadline.C:
			return time.Time{}, fmt.Errorf("%s: no %s after seq %d within %s", cd.room, typ, after, timeout)
		}
	}
}

// answer types a line and waits for the examiner's next words (or the end); the time from
// sending to their arrival is kept.
func (cd *candidate) answer(line string, timeout time.Duration) error {
	before := cd.maxSeq()
	deadline := time.Now().Add(timeout)
	// The client sends again until the bot confirms, through a rejoin or a bot that is away.
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	sent := time.Now()
	err := cd.c.SendCandidateText(ctx, line, 1)
	cancel()
	if err != nil {
		return fmt.Errorf("%s: send %q: %w", cd.room, line, err)
	}
	for {
		// A silence beat may speak meanwhile; it is not the reply.
		at, ok := cd.firstMatch(before, func(ev runtime.Event) bool {
			return ev.Event == runtime.EventSpoken && !strings.Contains(string(ev.Payload), `"source":"beat"`) ||
				ev.Event == runtime.EventExamCompleted
		})
		if ok {
			cd.mu.Lock()
			cd.replies = append(cd.replies, at.Sub(sent))
			cd.mu.Unlock()
			return nil
		}
		select {
		case <-cd.notify:
		case <-time.After(time.Until(deadline)):
			return fmt.Errorf("%s: no reply to %q within %s", cd.room, line, timeout)
		}
	}
}

// takeExam waits for the examiner's opening, answers every line and waits for the end.
func (cd *candidate) takeExam(lines []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	if _, err := cd.waitEvent(0, runtime.EventSpoken, "", timeout); err != nil {
		return err
	}
	for _, l := range lines {
		time.Sleep(cd.think)
		if err := cd.answer(l, time.Until(deadline)); err != nil {
			return err
		}
	}
	_, err := cd.waitEvent(0, runtime.EventExamCompleted, "", time.Until(deadline))
	return err
}

func (p *pool) session(room string) *sessions.Session {
	p.t.Helper()
	st, err := sessions.OpenURL(context.Background(), p.storeTarget(), sessions.WithRecovery(false))
	if err != nil {
		p.t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(context.Background())
	if err != nil {
		p.t.Fatal(err)
	}
	for _, s := range list {
		if s.Candidate == room {
			return s
		}
	}
	return nil
}

// TestWorkersRunDispatchedExams: two worker processes share 20 dispatched exams; every exam
// completes with a candidate typing the rehearsal's lines, and both workers took some.
func TestWorkersRunDispatchedExams(t *testing.T) {
	p := newPool(t)
	w1 := p.startWorker("w1", "--max-exams", "15")
	w2 := p.startWorker("w2", "--max-exams", "15")
	lines := apptest.Rehearsal(t).Said()
	const exams, wave = 20, 5 // five at a time: the machine is shared
	for start := 0; start < exams; start += wave {
		var wg sync.WaitGroup
		errs := make(chan error, wave)
		for i := start; i < start+wave; i++ {
			room := fmt.Sprintf("exam-%02d", i)
			p.dispatchExam(room, "hotel", room)
			cd := p.join(room, "cand-"+room)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := cd.takeExam(lines, 120*time.Second); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	n1, n2 := w1.count("job assigned"), w2.count("job assigned")
	t.Logf("worker 1 took %d exams, worker 2 took %d", n1, n2)
	if n1+n2 != exams || n1 == 0 || n2 == 0 {
		t.Errorf("jobs: w1 %d, w2 %d (want %d in all, some each)", n1, n2, exams)
	}
	for i := range exams {
		room := fmt.Sprintf("exam-%02d", i)
		testutil.Eventually(t, 10*time.Second, func() bool {
			s := p.session(room)
			return s != nil && s.Status() == sessions.StatusCompleted
		}, room+" stored completed")
	}
}

// TestWorkerFailoverAfterKill9: the worker running an exam is killed with -9 mid-exam; the
// other worker resumes it from the stored session, the candidate hears that the examiner
// reconnected, finishes the exam, and has every event the session shows a candidate. On
// PostgreSQL the two workers share nothing but the database (--store, a data directory each):
// the survivor learns the owner died from its lease.
func TestWorkerFailoverAfterKill9(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			p := newPool(t)
			if engine == "postgres" {
				p.pgURL = pgtest.NewDB(t)
			}
			testWorkerFailoverAfterKill9(t, p)
		})
	}
}

func testWorkerFailoverAfterKill9(t *testing.T, p *pool) {
	w1 := p.startWorker("w1")
	p.dispatchExam("failover", "hotel", "failover")
	testutil.Eventually(t, 20*time.Second, func() bool { return w1.count("job assigned") == 1 }, "w1 to take the exam")
	w2 := p.startWorker("w2")
	cd := p.join("failover", "cand-failover")
	lines := apptest.Rehearsal(t).Said()
	testutil.Eventually(t, 30*time.Second, func() bool { return cd.has(0, runtime.EventSpoken, "") }, "the opening")
	for _, l := range lines[:2] {
		if err := cd.answer(l, 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	before := cd.maxSeq()
	killed := time.Now()
	if err := w1.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, func() bool {
		return cd.has(before, runtime.EventSpoken, worker.ReconnectedNotice[:20])
	}, "the candidate to hear the examiner reconnected")
	t.Logf("failover: %s from kill -9 to the reconnected notice", time.Since(killed).Round(time.Millisecond))
	if w2.count("taking over an orphaned exam") != 1 {
		t.Errorf("w2 took over %d exams", w2.count("taking over an orphaned exam"))
	}
	for _, l := range lines[2:] {
		if err := cd.answer(l, 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, 30*time.Second, func() bool { return cd.has(0, runtime.EventExamCompleted, "") }, "the end")
	var s *sessions.Session
	testutil.Eventually(t, 10*time.Second, func() bool {
		s = p.session("failover")
		return s != nil && s.Status() == sessions.StatusCompleted
	}, "the stored session to complete")
	checkCandidateHasAll(t, p, s.ID, cd)
}

// checkCandidateHasAll: every event of the session a candidate is shown reached the candidate.
func checkCandidateHasAll(t *testing.T, p *pool, id string, cd *candidate) {
	t.Helper()
	st, err := sessions.OpenURL(context.Background(), p.storeTarget(), sessions.WithRecovery(false))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stored, err := st.LoadEvents(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	shown := map[runtime.EventType]bool{runtime.EventExamState: true, runtime.EventNodeEntered: true,
		runtime.EventSpoken: true, runtime.EventExamCompleted: true}
	testutil.Eventually(t, 20*time.Second, func() bool {
		cd.mu.Lock()
		defer cd.mu.Unlock()
		for _, ev := range stored {
			if shown[ev.Event] && cd.evs[ev.Seq].Event != ev.Event {
				return false
			}
		}
		return true
	}, "the candidate's whole view")
}

// TestWorkerRejectsUnknownSpecAndDrains: a dispatch naming an unknown spec is rejected with
// its reason while another exam runs; SIGTERM drains: an exam still waiting for its candidate
// stops at once, the running exam finishes, a second one left unanswered is stopped resumable
// at the drain timeout, and the worker exits.
func TestWorkerRejectsUnknownSpecAndDrains(t *testing.T) {
	p := newPool(t)
	w := p.startWorker("w1", "--drain-timeout", "20s", "--no-takeover")
	lines := apptest.Rehearsal(t).Said()
	p.dispatchExam("runs", "hotel", "runs")
	cd := p.join("runs", "cand-runs")
	testutil.Eventually(t, 30*time.Second, func() bool { return cd.has(0, runtime.EventSpoken, "") }, "the opening")
	if err := cd.answer(lines[0], 30*time.Second); err != nil {
		t.Fatal(err)
	}

	p.dispatchExam("bad", "no-such-exam", "bad", "--wait", "0") // rejected: no worker takes it
	testutil.Eventually(t, 20*time.Second, func() bool { return w.count("job rejected", "room", "bad") == 1 }, "the rejection")
	if r := w.find("job rejected")[0]; !strings.Contains(fmt.Sprint(r["reason"]), `"no-such-exam" is not in the worker's spec directory`) {
		t.Errorf("rejection reason = %v", r["reason"])
	}

	p.dispatchExam("idle", "hotel", "idle")
	idle := p.join("idle", "cand-idle")
	testutil.Eventually(t, 30*time.Second, func() bool { return idle.has(0, runtime.EventSpoken, "") }, "the idle exam's opening")

	p.dispatchExam("nobody-yet", "hotel", "nobody-yet") // its candidate never comes
	testutil.Eventually(t, 30*time.Second, func() bool {
		return w.count("waiting for the candidate", "room", "nobody-yet") == 1
	}, "the bot waiting in nobody-yet")

	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() bool { return w.count("draining: no new exams") == 1 }, "the drain")
	testutil.Eventually(t, 10*time.Second, func() bool {
		s := p.session("nobody-yet")
		return s != nil && s.Status() == sessions.StatusInterrupted
	}, "the waiting exam to stop at once")
	p.dispatchExam("late", "hotel", "late", "--wait", "0") // a draining worker takes nothing
	for _, l := range lines[1:] {
		if err := cd.answer(l, 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, 60*time.Second, w.exited, "the worker to exit")
	if w.err != nil {
		t.Errorf("worker exited with %v", w.err)
	}
	if s := p.session("runs"); s == nil || s.Status() != sessions.StatusCompleted {
		t.Errorf("the running exam: %+v", s)
	}
	if s := p.session("idle"); s == nil || s.Status() != sessions.StatusInterrupted {
		t.Errorf("the unanswered exam should be interrupted (resumable): %+v", s)
	}
	if p.session("late") != nil || w.count("job assigned", "room", "late") != 0 {
		t.Error("the draining worker took a job")
	}
}

// TestWorkerReconnectsAfterServerRestart: the server is lost and comes back; the worker
// registers again and runs the next dispatch.
func TestWorkerReconnectsAfterServerRestart(t *testing.T) {
	p := newPool(t)
	w := p.startWorker("w1")
	p.srv.Restart()
	testutil.Eventually(t, 30*time.Second, func() bool { return w.count("agent worker registered") >= 2 }, "the worker to register again")
	p.dispatchExam("after", "hotel", "after")
	cd := p.join("after", "cand-after")
	if err := cd.takeExam(apptest.Rehearsal(t).Said(), 90*time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestTokenDispatchStartsExamOnJoin: a candidate token minted with --dispatch-spec carries
// the dispatch in its room configuration, so the candidate's join creates the room, a worker
// gets the job and the exam runs to the end.
func TestTokenDispatchStartsExamOnJoin(t *testing.T) {
	p := newPool(t)
	w := p.startWorker("w1")
	tok, errOut, err := runCmd(t, "", "token", "--api-key", p.srv.APIKey, "--api-secret", p.srv.Secret, "--room", "on-join",
		"--identity", "cand-on-join", "--role", "candidate", "--name", "on-join", "--dispatch-spec", "hotel", "--agent-name", e2eAgent)
	if err != nil {
		t.Fatalf("token: %v\n%s", err, errOut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := livekit.Dial(ctx, p.srv.URL, strings.TrimSpace(tok))
	if err != nil {
		t.Fatal(err)
	}
	cd := listenAs(t, "on-join", c)
	if err := cd.takeExam(apptest.Rehearsal(t).Said(), 90*time.Second); err != nil {
		t.Fatal(err)
	}
	if w.count("job assigned", "room", "on-join") != 1 {
		t.Error("the worker did not get the join's dispatch")
	}
	if s := p.session("on-join"); s == nil || s.Status() != sessions.StatusCompleted {
		t.Errorf("session: %+v", s)
	}
}
