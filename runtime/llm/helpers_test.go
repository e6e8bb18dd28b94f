package llm_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/spec"
)

const testKey = "sk-test-examtui-5f1e2d3c4b5a"

// validArgs is a complete, schema-valid report_observation call.
const validArgs = `{"signals":[{"signalType":"proposes_options","rubricLevel":"analysis","excerpt":"we could run a hybrid buffet","confidence":0.8}],` +
	`"answerQuality":"substantive","needsFollowUp":true,"followUpType":"probe","evidenceSufficient":false,` +
	`"anxietyDetected":false,"distressDetected":false,"rapportMove":"acknowledgement","dialogueMove":"none",` +
	`"spokenText":"Thank you. What would the hybrid option cost per guest?"}`

func node() *spec.CompiledNode {
	return &spec.CompiledNode{
		NodeID: "breakfast_options",
		Kind:   spec.KindAssessment,
		LLM: spec.NodeLLM{
			RoleMessage: "You are Sam, the general manager.",
			TaskMessages: []spec.Message{
				{Role: "developer", Content: "Ask the candidate how to restructure breakfast service."},
			},
			Functions: []spec.FunctionDef{spec.ReportObservationTool()},
		},
	}
}

func turn() *runtime.ExaminerRequest {
	n := node()
	return &runtime.ExaminerRequest{
		Node: n,
		Messages: []spec.Message{
			{Role: "system", Content: n.LLM.RoleMessage},
			{Role: "developer", Content: n.LLM.TaskMessages[0].Content},
			{Role: "assistant", Content: "How would you restructure breakfast?"},
			{Role: "user", Content: "We could run a hybrid buffet with eggs cooked to order."},
		},
		Candidate: runtime.TranscriptSegmentPayload{SegmentID: "s1", Text: "We could run a hybrid buffet with eggs cooked to order.", Confidence: 0.9, IsFinal: true},
	}
}

// fast are options that keep failure tests quick: short waits everywhere.
func fast() []llm.Option {
	return []llm.Option{
		llm.WithRequestTimeout(2 * time.Second), llm.WithTurnDeadline(5 * time.Second),
		llm.WithBackoff(time.Millisecond, 5*time.Millisecond),
	}
}

func newExaminer(t testing.TB, srv *openaitest.Server, opts ...llm.Option) *llm.Examiner {
	t.Helper()
	base := []llm.Option{llm.WithBaseURL(srv.URL()), llm.WithAPIKey(testKey), llm.WithHTTPClient(srv.Client())}
	e, err := llm.New(append(base, opts...)...)
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// events collects what the controller emits.
type events struct {
	mu  sync.Mutex
	evs []runtime.Event
}

func (e *events) Deliver(ev runtime.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.evs = append(e.evs, ev)
}

func (e *events) payloads(t testing.TB, typ runtime.EventType) []runtime.Payload {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []runtime.Payload
	for _, ev := range e.evs {
		if ev.Event != typ {
			continue
		}
		p, err := ev.Decode()
		if err != nil {
			t.Fatalf("decode %s: %v", typ, err)
		}
		out = append(out, p)
	}
	return out
}

// answerAlways makes the test server answer every request it has nothing queued for with b.
func answerAlways(b openaitest.Behaviour) openaitest.Option {
	return openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour { return b })
}

// scriptedServer starts the test server with queue enqueued and, when fallback is not nil,
// answering with *fallback once the queue is spent (the tables' "always" column).
func scriptedServer(t testing.TB, fallback *openaitest.Behaviour, queue ...openaitest.Behaviour) *openaitest.Server {
	t.Helper()
	var opts []openaitest.Option
	if fallback != nil {
		opts = append(opts, answerAlways(*fallback))
	}
	srv := openaitest.New(t, opts...)
	srv.Enqueue(queue...)
	return srv
}

// startController starts a controller on exam with the examiner e and opts, the events it
// emits collected in the returned events; it is closed when the test ends.
func startController(t testing.TB, exam *spec.Exam, e runtime.Examiner, opts ...runtime.Option) (*runtime.Controller, *events) {
	t.Helper()
	got := &events{}
	c, err := runtime.NewController(exam, e, append([]runtime.Option{runtime.WithSink(runtime.NewFanout(got))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c, got
}

// observe runs Observe and fails the test if it does not return within limit: the examiner must
// never hang, whatever the server does. The limit is a liveness bound, far above the deadlines.
func observe(t *testing.T, e *llm.Examiner, ctx context.Context, req *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	t.Helper()
	type result struct {
		r   *runtime.ExaminerReply
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := e.Observe(ctx, req)
		done <- result{r, err}
	}()
	res := testutil.Recv(t, done, 30*time.Second, "Observe to return")
	return res.r, res.err
}

// logBuffer is a concurrency-safe slog sink.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
