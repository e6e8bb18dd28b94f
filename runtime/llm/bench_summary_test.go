package llm_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// requestTokens estimates a request's tokens as every context budget does (4 characters a
// token, 4 a message).
func requestTokens(r *openaitest.ChatRequest) int {
	n := 0
	for _, m := range r.Messages {
		n += len(m.Content)/4 + 4
	}
	return n
}

// BenchmarkTwoHourRehearsal runs a two-hour rehearsal with the LLM examiner (the demo exam
// with its scenarios stretched to an hour each, a turn every 15 s, each answer about 60
// words) against the loopback test server, whose summaries are far over the budget. Every
// request, the examiner's and the summary calls', must stay under the spec's token budget:
// the node's fixed messages, the history budget (4,000 tokens) and context.summaryTokens,
// plus the status line. It reports the largest request's tokens.
//
//	go test ./runtime/llm -run '^$' -bench TwoHourRehearsal -benchtime 1x
func BenchmarkTwoHourRehearsal(b *testing.B) {
	const summaryTokens, historyTokens, statusSlack = 2000, 4000, 300
	budgets := regexp.MustCompile(`timeBudgetSec: \d+`)
	exam := runtimetest.DemoExam(b, func(s string) string {
		s = strings.Replace(s, "totalTimeBudgetSec: 1200", "totalTimeBudgetSec: 7300", 1)
		s = budgets.ReplaceAllString(s, "timeBudgetSec: 3600")
		return s + fmt.Sprintf("context: {summaryTokens: %d}\n", summaryTokens)
	})
	answer := strings.TrimSpace(strings.Repeat("We could split the buffet into two lines and add a grab-and-go counter for guests in a hurry. ", 4))
	long := strings.Repeat("The candidate described the buffet, the queues and the staff in detail. ", 400)
	for b.Loop() {
		srv := openaitest.New(b,
			openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour {
				return openaitest.ToolCall(observationArgs("I see. What else would you change?", false))
			}),
			openaitest.WithPlainChat(func(*openaitest.ChatRequest) openaitest.Behaviour { return openaitest.Content(long) }))
		srv.Enqueue(openaitest.ToolCall(observationArgs("Thank you.", true)))
		clock := runtime.NewVirtualClock(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
		c, evs := startController(b, exam, newExaminer(b, srv, fast()...), runtime.WithClock(clock))
		start := clock.Now()
		turns := 0
		for c.Snapshot().State == runtime.StateInProgress && clock.Now().Sub(start) < 2*time.Hour+time.Minute {
			clock.Advance(15 * time.Second)
			if err := c.Tick(context.Background()); err != nil {
				b.Fatal(err)
			}
			if c.Snapshot().State != runtime.StateInProgress {
				break
			}
			if err := c.SubmitTurn(context.Background(), runtime.Turn{Text: fmt.Sprintf("%s (%d)", answer, turns), Duration: 10 * time.Second, Source: runtime.SourceTyped}); err != nil {
				b.Fatalf("turn %d: %v", turns, err)
			}
			turns++
		}
		if d := clock.Now().Sub(start); d < 2*time.Hour {
			b.Fatalf("the rehearsal lasted %v (%d turns), want two hours", d, turns)
		}
		fixed := 0
		for _, n := range exam.Nodes {
			t := 0
			for _, m := range n.LLM.TaskMessages {
				t += len(m.Content)/4 + 4
			}
			fixed = max(fixed, t+len(n.LLM.RoleMessage)/4+4)
		}
		limit := fixed + historyTokens + summaryTokens + statusSlack
		largest, summaries := 0, 0
		for _, r := range srv.ChatRequests() {
			largest = max(largest, requestTokens(r))
			if len(r.Tools) == 0 {
				summaries++
			}
		}
		if largest > limit {
			b.Fatalf("the largest request has %d tokens, over the budget %d", largest, limit)
		}
		if summaries == 0 || len(evs.payloads(b, runtime.EventContextSummary)) == 0 {
			b.Fatal("no model summary in two hours")
		}
		b.ReportMetric(float64(largest), "max-request-tokens")
		b.ReportMetric(float64(limit), "budget-tokens")
		b.ReportMetric(float64(turns), "turns")
		b.ReportMetric(float64(summaries), "summary-calls")
	}
}
