package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// capturing wraps an examiner and keeps each request's messages.
type capturing struct {
	runtime.Examiner
	mu   sync.Mutex
	reqs []*runtime.ExaminerRequest
}

func (c *capturing) Observe(ctx context.Context, req *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	return c.Examiner.Observe(ctx, req)
}

func hasContent(msgs []spec.Message, role, substr string) bool {
	for _, m := range msgs {
		if (role == "" || m.Role == role) && strings.Contains(m.Content, substr) {
			return true
		}
	}
	return false
}

func TestContextStrategies(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	cap := &capturing{Examiner: newOffline(t)}
	h := newHarness(t, exam, cap)
	h.start()
	for _, answer := range runtimetest.RehearsalAnswers[:4] {
		h.say(answer)
	}
	if len(cap.reqs) != 4 {
		t.Fatalf("%d requests", len(cap.reqs))
	}
	breakfast, rota := cap.reqs[1].Messages, cap.reqs[3].Messages
	// reset: the breakfast node sees its persona and task only, not the welcome exchange.
	if breakfast[0].Role != "system" || !strings.Contains(breakfast[0].Content, "Sam") || hasContent(breakfast, "user", "Priya") {
		t.Fatalf("reset context %+v", breakfast)
	}
	if !hasContent(breakfast, "developer", "report_observation") {
		t.Fatalf("task message missing: %+v", breakfast)
	}
	// reset_with_summary + carrySummary: a summary replaces the earlier history.
	if !hasContent(rota, "developer", "Previous topic summary: In scenario-hotel-breakfast the candidate said") ||
		!hasContent(rota, "developer", "Summary of the conversation so far") || hasContent(rota, "user", "grab-and-go") {
		t.Fatalf("reset_with_summary context %+v", rota)
	}
	if last := rota[len(rota)-1]; last.Role != "user" || !strings.Contains(last.Content, "lunch shift") {
		t.Fatalf("last message %+v", last)
	}
	for _, m := range rota {
		for _, banned := range []string{"followups_exhausted", "evidence_sufficient", "transitions"} {
			if strings.Contains(m.Content, banned) {
				t.Fatalf("transition metadata leaked to the LLM: %q", m.Content)
			}
		}
	}
}

func TestContextAppend(t *testing.T) {
	exam := compileTestExam(t, "basic.yaml", func(s string) string {
		return strings.Replace(s, "    transitions:\n", "    contextStrategy: append\n    transitions:\n", 1)
	})
	cap := &capturing{Examiner: newOffline(t)}
	h := newHarness(t, exam, cap)
	h.start()
	h.say("My name is Ada Lovelace.")
	h.say("The weekend move is a risk.")
	if !hasContent(cap.reqs[1].Messages, "user", "Ada Lovelace") {
		t.Fatalf("append lost the earlier node: %+v", cap.reqs[1].Messages)
	}
}

// loopExaminer answers every turn with the same observation, streaming it in chunks when
// stream > 0.
type loopExaminer struct {
	args   json.RawMessage
	stream int
}

func (loopExaminer) Name() string { return "loop" }
func (l loopExaminer) Observe(_ context.Context, req *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	if l.stream > 0 && req.OnArguments != nil {
		for n := l.stream; ; n += l.stream {
			req.OnArguments(l.args[:min(n, len(l.args))])
			if n >= len(l.args) {
				break
			}
		}
	}
	return &runtime.ExaminerReply{Arguments: l.args}, nil
}

func longExam(t testing.TB) *spec.Exam {
	return compileTestExam(t, "basic.yaml", func(s string) string {
		s = strings.Replace(s, "timeBudgetSec: 120", "timeBudgetSec: 1000000", 1)
		return strings.Replace(s, "totalTimeBudgetSec: 600", "totalTimeBudgetSec: 1000000", 1)
	})
}

func TestInNodeSummarisation(t *testing.T) {
	cap := &capturing{Examiner: loopExaminer{args: json.RawMessage(runtimetest.Args{SpokenText: "Please go on with the servers."}.String())}}
	h := newHarness(t, longExam(t), cap, runtime.WithContextBudget(6, 4000))
	h.start()
	for i := range 30 {
		h.say(fmt.Sprintf("Answer number %d about the servers. It has a second sentence.", i))
	}
	last := cap.reqs[len(cap.reqs)-1].Messages
	if !hasContent(last, "developer", "Summary of earlier turns on this topic") || !hasContent(last, "developer", "Candidate: Answer number 2") {
		t.Fatalf("no in-node summary: %+v", last)
	}
	history := 0
	for _, m := range last {
		if m.Role == "user" || m.Role == "assistant" {
			history++
		}
	}
	if history > 7 {
		t.Fatalf("%d history messages with a budget of 6", history)
	}
}

// TestMemoryFlatOverLongExam runs 1,000 turns in one node: the context, the segments and the
// controller's heap must stay bounded.
func TestMemoryFlatOverLongExam(t *testing.T) {
	ex := loopExaminer{args: json.RawMessage(runtimetest.Args{Signals: []runtime.Signal{sig("names_risk", "risk")}, SpokenText: "Please go on with the servers."}.String())}
	exam := longExam(t)
	clock := runtime.NewVirtualClock(t0)
	count := 0
	c, err := runtime.NewController(exam, ex, runtime.WithClock(clock), runtime.WithSink(runtime.NewFanout(runtime.SubscriberFunc(func(runtime.Event) { count++ }))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		goruntime.GC()
		var m goruntime.MemStats
		goruntime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var at100 uint64
	for i := range 1000 {
		clock.Advance(3 * time.Second)
		text := fmt.Sprintf("Turn %d: the risk is that the servers fail during the move, so we need a tested rollback plan.", i)
		if err := c.SubmitTurn(ctx, runtime.Turn{Text: text, Duration: 2 * time.Second}); err != nil {
			t.Fatal(err)
		}
		if i == 99 {
			at100 = heap()
		}
	}
	at1000 := heap()
	s := c.Snapshot()
	// names_risk twice: heard in the intro (another node's signal, kept) and in plan; the
	// 999 repeats in plan are duplicates.
	if s.NodeID != "plan" || s.Turn != 1000 || len(s.Ledger) != 2 {
		t.Fatalf("snapshot %+v", s)
	}
	if growth := int64(at1000) - int64(at100); growth > 256<<10 {
		t.Fatalf("heap grew by %d bytes between turn 100 and 1000", growth)
	}
	t.Logf("heap at turn 100: %d B, at turn 1000: %d B, %d events", at100, at1000, count)
}
