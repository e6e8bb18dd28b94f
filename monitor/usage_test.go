package monitor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/runtime/usage"
	"github.com/examtui/examtui/sessions"
)

// TestLLMExamUsage runs a 10-turn exam with the real go-openai examiner against the test
// server, which reports known token counts on every reply (streamed, in OpenAI's last usage
// chunk), records it in each store engine, and checks that the usage recorded everywhere is
// the sum the server sent and the cost is priced from a config file's prices: the store's
// aggregate (sessions list), the replayed events, sessions show, and the control room's board
// and cost alert.
func TestLLMExamUsage(t *testing.T) {
	pgtest.EachEngine(t, testLLMExamUsage)
}

func testLLMExamUsage(t *testing.T, target string) {
	ctx := context.Background()
	const turns = 10
	// The examiner's summary calls (no tools) are answered apart, each with its own usage: they
	// are paid for, so they count as calls of the exam too.
	const summaryPrompt, summaryCompletion = 310, 42
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-usage-test"), openaitest.WithPlainChat(func(*openaitest.ChatRequest) openaitest.Behaviour {
		return openaitest.Content("The candidate proposed a hybrid buffet.", openaitest.TokenUsage(summaryPrompt, summaryCompletion))
	}))
	var wantPrompt, wantCompletion int64
	for i := range turns {
		p, c := 1200+173*i, 35+9*i
		wantPrompt, wantCompletion = wantPrompt+int64(p), wantCompletion+int64(c)
		args := runtimetest.Args{SpokenText: fmt.Sprintf("Thank you. What else would you consider (%d)?", i+1)}
		srv.Enqueue(openaitest.ToolCall(args.String(), openaitest.TokenUsage(p, c), openaitest.Streamed(16, 0)))
	}
	ex, err := llm.New(llm.WithBaseURL(srv.URL()), llm.WithAPIKey("sk-usage-test"), llm.WithHTTPClient(srv.Client()),
		llm.WithModel("gpt-4o-mini"), llm.WithStreaming(true), llm.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close() })

	// The prices come from a config file, as examtui reads it.
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, []byte("prices:\n  gpt-4o-mini: {promptPerMTok: 0.15, completionPerMTok: 0.6}\nbudget: {costPerExam: 0.001}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(config.EnvConfigFile, cfgPath)
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}

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
	for i := range turns {
		done := make(chan error, 1)
		go func() {
			done <- c.SubmitTurn(ctx, runtime.Turn{Text: "We could run a hybrid buffet for the conference guests.", Confidence: 0.95, Source: runtime.SourceTyped})
		}()
		if err := testutil.Recv(t, done, 30*time.Second, "SubmitTurn to return"); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	n, summaries := 0, 0
	for _, r := range srv.ChatRequests() {
		if len(r.Tools) > 0 {
			n++
		} else {
			summaries++
		}
	}
	if n != turns {
		t.Fatalf("the server answered %d examiner calls, want %d", n, turns)
	}
	calls := int64(turns + summaries)
	wantPrompt += int64(summaries * summaryPrompt)
	wantCompletion += int64(summaries * summaryCompletion)
	wantCost := float64(wantPrompt)*0.15/1e6 + float64(wantCompletion)*0.6/1e6
	t.Logf("%d turns and %d summary calls: %d prompt and %d completion tokens", turns, summaries, wantPrompt, wantCompletion)

	check := func(where string, u usage.Totals) {
		t.Helper()
		m := u.LLM["gpt-4o-mini"]
		if m == nil || len(u.LLM) != 1 || m.Turns != calls || m.UnknownTurns != 0 || m.PromptTokens != wantPrompt || m.CompletionTokens != wantCompletion {
			t.Errorf("%s: usage %+v, want %d calls, %d prompt and %d completion tokens", where, m, calls, wantPrompt, wantCompletion)
		}
		if cost := u.Cost(cfg.Prices); !cost.Known || fmt.Sprintf("%.9f", cost.Amount) != fmt.Sprintf("%.9f", wantCost) {
			t.Errorf("%s: cost %+v, want %.9f", where, cost, wantCost)
		}
	}
	// The store's aggregate, as sessions list reads it.
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("list %v, %v", list, err)
	}
	check("sessions list", list[0].Usage)
	// The events, as resume and replay read them.
	_, events, err := st.Load(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("stored events", usage.Of(events))

	// sessions show.
	sum, err := st.Summary(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("summary", sum.Usage)
	md := sessions.RenderMarkdown(sum, sessions.MarkdownOptions{Prices: cfg.Prices})
	for _, want := range []string{
		fmt.Sprintf("- **Usage:** gpt-4o-mini: %d prompt + %d completion tokens in %d calls\n", wantPrompt, wantCompletion, calls),
		fmt.Sprintf("- **Cost:** %.4f\n", wantCost),
	} {
		if !strings.Contains(md, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, md)
		}
	}

	// The control room, following the store: the cost and the alert over the budget.
	b, err := NewBoard(Thresholds{Prices: cfg.Prices, CostPerExam: cfg.Budget.CostPerExam})
	if err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	updates := make(chan Update, 4)
	go Follow(fctx, st, FollowOptions{Interval: 10 * time.Millisecond}, updates)
	u := testutil.Recv(t, updates, 30*time.Second, "the follower's first update")
	b.ApplyUpdate(u)
	r := b.Row(sess.ID)
	if r == nil {
		t.Fatal("the board has no row for the exam")
	}
	check("control room", r.Usage)
	if !r.Has(AlertCost) || wantCost <= cfg.Budget.CostPerExam {
		t.Errorf("alerts %v: want a cost alert (cost %.4f over the budget %.4f)", r.Alerts, wantCost, cfg.Budget.CostPerExam)
	}
}
