package agent_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/transport/livekit/agent"
)

// recorder is a Handler that keeps what it was offered and given; jobs run until released or
// terminated.
type recorder struct {
	name   string
	accept bool

	mu       sync.Mutex
	offers   []agent.JobRequest
	assigned []agent.Assignment
	ended    map[string]error // job id → how Run returned
	release  chan struct{}
}

func newRecorder(name string) *recorder {
	return &recorder{name: name, accept: true, ended: map[string]error{}, release: make(chan struct{})}
}

func (r *recorder) Offer(_ context.Context, req agent.JobRequest) agent.Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.offers = append(r.offers, req)
	return agent.Answer{Accept: r.accept, Identity: "bot-" + r.name, Name: "examiner",
		Attributes: map[string]string{"examtui.role": "bot"}}
}

func (r *recorder) Run(ctx context.Context, a agent.Assignment) error {
	r.mu.Lock()
	r.assigned = append(r.assigned, a)
	r.mu.Unlock()
	var err error
	select {
	case <-ctx.Done():
		err = ctx.Err()
	case <-r.release:
		if strings.Contains(a.Metadata, "fail") {
			err = errors.New("spec \"nope\" not found")
		}
	}
	r.mu.Lock()
	r.ended[a.ID] = err
	r.mu.Unlock()
	return err
}

func (r *recorder) count() (offers, assigned int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.offers), len(r.assigned)
}

func (r *recorder) assignments() []agent.Assignment {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Assignment(nil), r.assigned...)
}

func (r *recorder) endedWith(id string) (error, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	err, ok := r.ended[id]
	return err, ok
}

func startWorker(t *testing.T, srv *lktest.Server, h agent.Handler, opts ...agent.Option) *agent.Worker {
	t.Helper()
	w, err := agent.New(agent.Config{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.Secret, AgentName: "examtui-test",
		Version: "test"}, h, append([]agent.Option{agent.WithLogger(testLog(t)),
		agent.WithReconnectBackoff(100*time.Millisecond, time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		w.StopJobs()
		wctx, c := context.WithTimeout(context.Background(), 10*time.Second)
		defer c()
		_ = w.WaitJobs(wctx)
	})
	testutil.Eventually(t, 20*time.Second, func() bool { return w.State() == agent.StateRegistered }, "the worker to register")
	return w
}

func dispatcher(srv *lktest.Server) *lksdk.AgentDispatchClient {
	return lksdk.NewAgentDispatchServiceClient(srv.HTTPURL, srv.APIKey, srv.Secret)
}

// dispatch creates a dispatch, retrying while the server has not yet seen the worker's agent
// name (it caches the names it knows for a while).
func dispatch(t *testing.T, srv *lktest.Server, room, metadata string) *lkproto.AgentDispatch {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := dispatcher(srv).CreateDispatch(ctx, &lkproto.CreateAgentDispatchRequest{AgentName: "examtui-test", Room: room, Metadata: metadata})
	if err != nil {
		t.Fatalf("create dispatch for %s: %v", room, err)
	}
	return d
}

// TestWorkerTakesDispatchedJob: a dispatch made through the AgentDispatch API reaches the
// worker as an offer and an assignment whose token admits the identity the worker chose, with
// the dispatch's metadata; the job's end is reported; deleting the dispatch terminates a job.
func TestWorkerTakesDispatchedJob(t *testing.T) {
	srv := lktest.Start(t)
	rec := newRecorder("a")
	w := startWorker(t, srv, rec)
	if w.ID() == "" {
		t.Fatal("no worker id after registration")
	}
	d := dispatch(t, srv, "room-one", `{"spec":"demo"}`)
	testutil.Eventually(t, 20*time.Second, func() bool { _, n := rec.count(); return n == 1 }, "the assignment")
	a := rec.assignments()[0]
	if a.Room != "room-one" || a.Metadata != `{"spec":"demo"}` || a.DispatchID != d.Id || a.Token == "" || a.URL != srv.URL {
		t.Fatalf("assignment = room %q metadata %q dispatch %q (want %q) url %q token set %v", a.Room, a.Metadata, a.DispatchID, d.Id, a.URL, a.Token != "")
	}
	if got := w.RunningJobs(); got != 1 {
		t.Errorf("running jobs = %d, want 1", got)
	}

	// The token admits the chosen identity with the chosen attributes.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	room, err := lksdk.ConnectToRoomWithToken(a.URL, a.Token, &lksdk.RoomCallback{}, lksdk.WithAutoSubscribe(false))
	if err != nil {
		t.Fatalf("join with the assignment's token: %v", err)
	}
	lp := room.LocalParticipant
	if lp.Identity() != "bot-a" || lp.Attributes()["examtui.role"] != "bot" || lp.Attributes()["lk.agent_name"] != "examtui-test" {
		t.Errorf("joined as %q with attributes %v", lp.Identity(), lp.Attributes())
	}
	room.Disconnect()

	// Deleting the dispatch terminates the running job.
	if _, err := dispatcher(srv).DeleteDispatch(ctx, &lkproto.DeleteAgentDispatchRequest{DispatchId: d.Id, Room: "room-one"}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, func() bool { _, ok := rec.endedWith(a.ID); return ok }, "the job to be terminated")
	if err, _ := rec.endedWith(a.ID); !errors.Is(err, context.Canceled) {
		t.Errorf("terminated job ended with %v, want its context cancelled", err)
	}
	testutil.Eventually(t, 5*time.Second, func() bool { return w.RunningJobs() == 0 }, "no running jobs")
}

// TestFullWorkerDeclinesAndTheOtherTakesIt: a worker at its job limit (or draining) says it
// is not available, so the server gives the job to the other worker; one that declines every
// offer gets none.
func TestFullWorkerDeclinesAndTheOtherTakesIt(t *testing.T) {
	srv := lktest.Start(t)
	busy, idle := newRecorder("busy"), newRecorder("idle")
	wb := startWorker(t, srv, busy, agent.WithMaxJobs(1))
	dispatch(t, srv, "first", "")
	testutil.Eventually(t, 20*time.Second, func() bool { _, n := busy.count(); return n == 1 }, "the first job")
	startWorker(t, srv, idle, agent.WithMaxJobs(5))
	for i := range 4 {
		dispatch(t, srv, fmt.Sprintf("more-%d", i), "")
	}
	testutil.Eventually(t, 30*time.Second, func() bool { _, n := idle.count(); return n == 4 }, "the idle worker to take four jobs")
	if _, n := busy.count(); n != 1 {
		t.Errorf("the full worker got %d jobs, want 1", n)
	}
	if got := wb.RunningJobs(); got != 1 {
		t.Errorf("full worker runs %d jobs, want 1", got)
	}

	// Draining: the once-busy worker, now idle, takes no more jobs; the other takes the next
	// one up to its limit, and then nobody is available and the job is not assigned.
	close(busy.release)
	testutil.Eventually(t, 10*time.Second, func() bool { return wb.RunningJobs() == 0 }, "the busy worker's job to end")
	wb.SetDraining(true)
	time.Sleep(500 * time.Millisecond) // let the status reach the server
	dispatch(t, srv, "fifth", "")
	testutil.Eventually(t, 20*time.Second, func() bool { _, n := idle.count(); return n == 5 }, "the other worker's fifth job")
	dispatch(t, srv, "nobody", "")
	time.Sleep(2 * time.Second)
	if _, n := busy.count(); n != 1 {
		t.Errorf("the draining worker took a job (%d in all)", n)
	}
	if _, n := idle.count(); n != 5 {
		t.Errorf("the full worker has %d jobs, want 5", n)
	}
}

// TestLoadSteersJobsToTheIdleWorker: the server weighs workers by 1-load, so a worker that
// reports high load gets few jobs.
func TestLoadSteersJobsToTheIdleWorker(t *testing.T) {
	srv := lktest.Start(t)
	loaded, idle := newRecorder("loaded"), newRecorder("idle")
	startWorker(t, srv, loaded, agent.WithMaxJobs(50), agent.WithLoad(func() float32 { return 0.95 }))
	startWorker(t, srv, idle, agent.WithMaxJobs(50))
	time.Sleep(1500 * time.Millisecond) // both statuses reach the server
	const n = 12
	for i := range n {
		dispatch(t, srv, fmt.Sprintf("load-%d", i), "")
	}
	testutil.Eventually(t, 60*time.Second, func() bool {
		_, a := loaded.count()
		_, b := idle.count()
		return a+b == n
	}, "every job assigned")
	_, a := loaded.count()
	_, b := idle.count()
	t.Logf("loaded worker took %d jobs, idle worker %d", a, b)
	// With weights 0.05 and 1, the loaded worker's expected share is under 5%; 4 or more of
	// 12 happens with probability below 1e-3.
	if a >= 4 {
		t.Errorf("the loaded worker took %d of %d jobs", a, n)
	}
}

// TestFailedJobReportsItsReason: a job that fails ends with its reason reported, and the
// worker goes on taking jobs.
func TestFailedJobReportsItsReason(t *testing.T) {
	srv := lktest.Start(t)
	rec := newRecorder("a")
	w := startWorker(t, srv, rec)
	close(rec.release)
	dispatch(t, srv, "bad", `{"spec":"fail"}`)
	testutil.Eventually(t, 20*time.Second, func() bool { _, n := rec.count(); return n == 1 }, "the bad job")
	a := rec.assignments()[0]
	testutil.Eventually(t, 10*time.Second, func() bool { _, ok := rec.endedWith(a.ID); return ok }, "the bad job to end")
	if err, _ := rec.endedWith(a.ID); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("bad job ended with %v", err)
	}
	dispatch(t, srv, "good", `{"spec":"demo"}`)
	testutil.Eventually(t, 20*time.Second, func() bool { _, n := rec.count(); return n == 2 }, "the next job")
	testutil.Eventually(t, 10*time.Second, func() bool { return w.RunningJobs() == 0 }, "no running jobs")
}

// TestWorkerReconnectsAfterServerLoss: the server crashes and comes back; the worker
// registers again and takes the next dispatch. A job that was running goes on.
func TestWorkerReconnectsAfterServerLoss(t *testing.T) {
	srv := lktest.Start(t)
	rec := newRecorder("a")
	var mu sync.Mutex
	var states []agent.State
	w := startWorker(t, srv, rec, agent.WithStateChanges(func(s agent.State) {
		mu.Lock()
		states = append(states, s)
		mu.Unlock()
	}), agent.WithPingInterval(time.Second, 3*time.Second))
	dispatch(t, srv, "before", "")
	testutil.Eventually(t, 20*time.Second, func() bool { _, n := rec.count(); return n == 1 }, "the first job")
	first := w.ID()

	srv.Restart()
	testutil.Eventually(t, 30*time.Second, func() bool {
		return w.Registrations() >= 2 && w.State() == agent.StateRegistered
	}, "the worker to register again")
	if w.ID() == first {
		t.Errorf("worker id %q did not change on re-registration", first)
	}
	if got := w.RunningJobs(); got != 1 {
		t.Errorf("the running job did not survive the reconnect: %d jobs", got)
	}
	dispatch(t, srv, "after", "")
	testutil.Eventually(t, 30*time.Second, func() bool { _, n := rec.count(); return n == 2 }, "a job after the reconnect")
	mu.Lock()
	if !containsState(states, agent.StateLost) {
		t.Errorf("states %v never reported the lost connection", states)
	}
	mu.Unlock()
	testutil.Eventually(t, 10*time.Second, func() bool { return w.RTT() > 0 }, "a ping answered")
}

func containsState(ss []agent.State, s agent.State) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestNewValidates(t *testing.T) {
	ok := agent.Config{URL: "ws://127.0.0.1:7880", APIKey: "k", APISecret: "s", AgentName: "examtui"}
	cases := []struct {
		name string
		cfg  func(agent.Config) agent.Config
		opts []agent.Option
		h    agent.Handler
	}{
		{"no url", func(c agent.Config) agent.Config { c.URL = ""; return c }, nil, newRecorder("x")},
		{"bad scheme", func(c agent.Config) agent.Config { c.URL = "ftp://x"; return c }, nil, newRecorder("x")},
		{"no secret", func(c agent.Config) agent.Config { c.APISecret = ""; return c }, nil, newRecorder("x")},
		{"no agent name", func(c agent.Config) agent.Config { c.AgentName = ""; return c }, nil, newRecorder("x")},
		{"no handler", func(c agent.Config) agent.Config { return c }, nil, nil},
		{"zero max jobs", func(c agent.Config) agent.Config { return c }, []agent.Option{agent.WithMaxJobs(0)}, newRecorder("x")},
		{"ping too fast", func(c agent.Config) agent.Config { return c }, []agent.Option{agent.WithPingInterval(time.Millisecond, time.Second)}, newRecorder("x")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var h agent.Handler
			if tc.h != nil {
				h = tc.h
			}
			if _, err := agent.New(tc.cfg(ok), h, tc.opts...); !errors.Is(err, agent.ErrInvalidConfig) {
				t.Errorf("err = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func testLog(t *testing.T) *slog.Logger { return testutil.Logger(t, slog.LevelInfo) }
