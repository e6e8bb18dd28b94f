package llm_test

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/runtime/usage"
)

// TestUnusedSpeculationCounted: speculative examiner calls whose replies are not used were paid
// for all the same. One answered (its tokens are recorded as a call_usage event), one was
// cancelled while the server was still answering (a failed request, no tokens); the turn's own
// call is the observation's. Before, only the turn's call was counted.
func TestUnusedSpeculationCounted(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	srv := openaitest.New(t, openaitest.WithAPIKey(testKey))
	srv.Enqueue(openaitest.ToolCall(validArgs, openaitest.TokenUsage(500, 10)),
		openaitest.ToolCall(validArgs, openaitest.TokenUsage(501, 11), openaitest.Delay(time.Minute)),
		openaitest.ToolCall(validArgs, openaitest.TokenUsage(800, 20)))
	e := &signalling{Examiner: newExaminer(t, srv, llm.WithStreaming(true), llm.WithMaxRetries(0)), done: make(chan struct{}, 8)}
	c, got := startController(t, exam, e)
	ctx := context.Background()
	spec := func(text string) {
		t.Helper()
		if err := c.Speculate(ctx, runtime.Turn{Text: text, Confidence: 1, Source: runtime.SourceMic}); err != nil {
			t.Fatal(err)
		}
	}
	// The first speculation answers, then the candidate goes on: a second replaces it and hangs
	// at the server until the final turn, which differs from both, cancels it.
	spec("We could run a hybrid buffet")
	testutil.Recv(t, e.done, 10*time.Second, "the first speculation's answer")
	spec("We could run a hybrid buffet with eggs cooked")
	testutil.Eventually(t, 10*time.Second, func() bool { return len(got.payloads(t, runtime.EventCallUsage)) == 1 }, "the first speculation's usage")
	testutil.Eventually(t, 10*time.Second, func() bool { return len(srv.ChatRequests()) == 2 }, "the second speculation to reach the server")
	if err := c.SubmitTurn(ctx, runtime.Turn{Text: "We could run a hybrid buffet with eggs cooked to order for business travellers.", Confidence: 1, Source: runtime.SourceMic}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() bool { return len(got.payloads(t, runtime.EventCallUsage)) == 2 }, "the cancelled speculation's failed request")

	got.mu.Lock()
	totals := usage.Of(got.evs)
	got.mu.Unlock()
	m := totals.LLM[e.Name()]
	if m == nil || *m != (usage.LLM{Turns: 2, FailedAttempts: 1, PromptTokens: 1300, CompletionTokens: 30}) {
		t.Errorf("usage %+v, want 2 calls (the answered speculation, the turn), 1 failed request, 1300/30 tokens", m)
	}
	if s := c.Speculations(); s.Started != 2 || s.Reused != 0 || s.Discarded != 2 {
		t.Errorf("speculations %+v", s)
	}
}

// signalling is the examiner, telling the test each time a call has returned.
type signalling struct {
	*llm.Examiner
	done chan struct{}
}

func (s *signalling) Observe(ctx context.Context, req *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	defer func() { s.done <- struct{}{} }()
	return s.Examiner.Observe(ctx, req)
}
