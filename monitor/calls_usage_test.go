package monitor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/runtime/usage"
	"github.com/examtui/examtui/sessions"
)

// TestCallsBeyondTurnsCounted: examiner calls that are not a turn's observation are counted
// too, in each store engine: an immediate examiner instruction's call (its tokens, on the
// admin_instruction event that settles it) and a request that failed before a retry answered
// (counted as a failed request; servers send no usage with an error). Before, the store, sessions
// show and the control room saw only the turns' tokens.
func TestCallsBeyondTurnsCounted(t *testing.T) {
	pgtest.EachEngine(t, testCallsBeyondTurnsCounted)
}

func testCallsBeyondTurnsCounted(t *testing.T, target string) {
	ctx := context.Background()
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-calls-test"))
	say := func(s string) string { return runtimetest.Args{SpokenText: s}.String() }
	srv.Enqueue(openaitest.ToolCall(say("Thank you. What else would you consider?"), openaitest.TokenUsage(1000, 40)))
	srv.Enqueue(openaitest.Status(500))
	srv.Enqueue(openaitest.ToolCall(say("Thank you. And the staff?"), openaitest.TokenUsage(1100, 45)))
	srv.Enqueue(openaitest.ToolCall(say("Let us look at the costs now."), openaitest.TokenUsage(1300, 20)))
	const wantPrompt, wantCompletion = 1000 + 1100 + 1300, 40 + 45 + 20
	ex, err := llm.New(llm.WithBaseURL(srv.URL()), llm.WithAPIKey("sk-calls-test"), llm.WithHTTPClient(srv.Client()),
		llm.WithModel("gpt-4o-mini"), llm.WithStreaming(true), llm.WithMaxRetries(1), llm.WithBackoff(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close() })
	st, err := sessions.OpenURL(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	exam := runtimetest.DemoExam(t, nil)
	sess, err := st.Create(ctx, sessions.Meta{Exam: exam, Candidate: "Ada", Examiner: ex.Name(), Input: runtime.SourceTyped})
	if err != nil {
		t.Fatal(err)
	}
	j, err := st.Journal(ctx, sess.ID, sessions.WithWaitCommit())
	if err != nil {
		t.Fatal(err)
	}
	c, err := runtime.NewController(exam, ex, runtime.WithSink(j), runtime.WithSessionID(sess.ID))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := c.SubmitTurn(ctx, runtime.Turn{Text: "We could run a hybrid buffet for the conference guests.", Confidence: 0.95, Source: runtime.SourceTyped}); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
	}
	if err := c.Admin(ctx, runtime.AdminInstruction{Mode: runtime.AdminImmediate, Text: "Move on to the costs.", Sender: "console:lee"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.ChatRequests()); n != 4 {
		t.Fatalf("the server answered %d chat requests, want 4 (2 turns, one retried, and the instruction)", n)
	}

	check := func(where string, u usage.Totals) {
		t.Helper()
		m := u.LLM["gpt-4o-mini"]
		if m == nil || *m != (usage.LLM{Turns: 3, FailedAttempts: 1, PromptTokens: wantPrompt, CompletionTokens: wantCompletion}) {
			t.Errorf("%s: usage %+v, want 3 calls, 1 failed request, %d prompt and %d completion tokens", where, m, wantPrompt, wantCompletion)
		}
	}
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("list %v, %v", list, err)
	}
	check("sessions list", list[0].Usage)
	_, events, err := st.Load(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("stored events", usage.Of(events))
	sum, err := st.Summary(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("summary", sum.Usage)
	md := sessions.RenderMarkdown(sum, sessions.MarkdownOptions{})
	if want := fmt.Sprintf("gpt-4o-mini: %d prompt + %d completion tokens in 3 calls (+1 failed requests, not priced)", wantPrompt, wantCompletion); !strings.Contains(md, want) {
		t.Errorf("sessions show lacks %q:\n%s", want, md)
	}
	b, err := NewBoard(Thresholds{})
	if err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	updates := make(chan Update, 4)
	go Follow(fctx, st, FollowOptions{Interval: 10 * time.Millisecond}, updates)
	b.ApplyUpdate(testutil.Recv(t, updates, 30*time.Second, "the follower's first update"))
	r := b.Row(sess.ID)
	if r == nil {
		t.Fatal("the board has no row for the exam")
	}
	check("control room", r.Usage)
}
