package runtime_test

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/offline"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// compileTestExam compiles a spec from testdata, optionally editing its source first.
func compileTestExam(t testing.TB, name string, edit func(string) string) *spec.Exam {
	t.Helper()
	src, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	if edit != nil {
		s = edit(s)
	}
	exam, diags, err := spec.Compile(name, []byte(s))
	if err != nil {
		t.Fatalf("compile %s: %v\n%v", name, err, diags)
	}
	return exam
}

// scriptedExaminer returns prepared report_observation arguments in order: a test examiner
// standing in for the LLM so each decision rule can be driven precisely. Each reply may be
// raw JSON, an error, or nothing (no tool call).
type scriptedExaminer struct {
	mu      sync.Mutex
	replies []scriptedReply
	reqs    []*runtime.ExaminerRequest
	stream  int // when > 0, deliver arguments through OnArguments in chunks of this size
}

type scriptedReply struct {
	args string
	err  error
	// during runs inside the call (e.g. an examiner pressing "advance" while the LLM thinks).
	during func()
}

func (s *scriptedExaminer) Name() string { return "scripted" }

func (s *scriptedExaminer) Observe(ctx context.Context, req *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	if len(s.replies) == 0 {
		s.mu.Unlock()
		return nil, context.DeadlineExceeded
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	stream := s.stream
	s.mu.Unlock()
	if r.during != nil {
		r.during()
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.args == "" {
		return &runtime.ExaminerReply{Content: "I forgot to call the tool."}, nil
	}
	if stream > 0 && req.OnArguments != nil {
		b := []byte(r.args)
		for n := stream; ; n += stream {
			req.OnArguments(b[:min(n, len(b))])
			if n >= len(b) {
				break
			}
		}
	}
	return &runtime.ExaminerReply{Arguments: json.RawMessage(r.args), Complete: time.Millisecond}, nil
}

func (s *scriptedExaminer) push(args ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range args {
		s.replies = append(s.replies, scriptedReply{args: a})
	}
}

func sig(t, excerpt string) runtime.Signal {
	return runtime.Signal{SignalType: t, Excerpt: excerpt, Confidence: 0.8}
}

// harness is a controller on a virtual clock with every event recorded.
type harness struct {
	t     testing.TB
	c     *runtime.Controller
	clock *runtime.VirtualClock
	rec   *runtime.Recorder
	ex    runtime.Examiner
	ctx   context.Context
}

func newHarness(t testing.TB, exam *spec.Exam, ex runtime.Examiner, opts ...runtime.Option) *harness {
	t.Helper()
	h := &harness{t: t, clock: runtime.NewVirtualClock(t0), rec: &runtime.Recorder{}, ex: ex, ctx: context.Background()}
	all := append([]runtime.Option{runtime.WithClock(h.clock), runtime.WithSink(runtime.NewFanout(h.rec)), runtime.WithSessionID("test")}, opts...)
	c, err := runtime.NewController(exam, ex, all...)
	if err != nil {
		t.Fatal(err)
	}
	h.c = c
	t.Cleanup(func() { _ = c.Close() })
	return h
}

func newOffline(t testing.TB) *offline.Examiner {
	ex, err := offline.New()
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func (h *harness) start() {
	h.t.Helper()
	if err := h.c.Start(h.ctx); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) say(text string) {
	h.t.Helper()
	h.clock.Advance(2 * time.Second)
	if err := h.c.SubmitTurn(h.ctx, runtime.Turn{Text: text, Duration: time.Second}); err != nil {
		h.t.Fatalf("SubmitTurn(%q): %v", text, err)
	}
}

func (h *harness) sayConf(text string, conf float64) {
	h.t.Helper()
	h.clock.Advance(2 * time.Second)
	if err := h.c.SubmitTurn(h.ctx, runtime.Turn{Text: text, Duration: time.Second, Confidence: conf, Source: runtime.SourceMic}); err != nil {
		h.t.Fatalf("SubmitTurn(%q): %v", text, err)
	}
}

// wait advances the clock second by second, ticking.
func (h *harness) wait(d time.Duration) {
	h.t.Helper()
	for d > 0 {
		step := min(d, time.Second)
		h.clock.Advance(step)
		d -= step
		if err := h.c.Tick(h.ctx); err != nil {
			h.t.Fatal(err)
		}
	}
}

// resumeFrom builds the controller of a new process that resumes log on clock, with ex as its
// examiner; what it emits goes to the returned recorder. It is closed when the test ends, and
// not started.
func resumeFrom(t testing.TB, exam *spec.Exam, ex runtime.Examiner, clock runtime.Clock, log []runtime.Event, opts ...runtime.Option) (*runtime.Controller, *runtime.Recorder) {
	t.Helper()
	rec := &runtime.Recorder{}
	all := append([]runtime.Option{runtime.WithClock(clock), runtime.WithSink(runtime.NewFanout(rec)), runtime.WithResume(log)}, opts...)
	c, err := runtime.NewController(exam, ex, all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, rec
}

// payloads returns the decoded payloads of every event of type T.
func payloads[T runtime.Payload](h *harness) []T {
	h.t.Helper()
	return runtimetest.Payloads[T](h.t, h.rec.Events())
}

func (h *harness) visits() []string {
	var out []string
	for _, p := range payloads[*runtime.NodeEnteredPayload](h) {
		out = append(out, p.NodeID)
	}
	return out
}

func (h *harness) spoken() []string {
	var out []string
	for _, p := range payloads[*runtime.SpokenPayload](h) {
		out = append(out, p.Text)
	}
	return out
}

func (h *harness) lastObservation() *runtime.ObservationPayload {
	obs := payloads[*runtime.ObservationPayload](h)
	if len(obs) == 0 {
		h.t.Fatal("no observation event")
	}
	return obs[len(obs)-1]
}

// checkSeq verifies the envelope invariants: seq gap-free from 1, one session id.
func (h *harness) checkSeq() {
	h.t.Helper()
	for i, ev := range h.rec.Events() {
		if ev.Seq != int64(i+1) {
			h.t.Fatalf("event %d (%s) has seq %d", i, ev.Event, ev.Seq)
		}
		if ev.SessionID != "test" {
			h.t.Fatalf("event %d has session %q", i, ev.SessionID)
		}
	}
}

func offlineStreaming(chunk int) (*offline.Examiner, error) {
	return offline.New(offline.WithStreaming(chunk))
}
