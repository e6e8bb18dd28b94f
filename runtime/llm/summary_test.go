package llm_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestModelSummary: with the LLM examiner, the older turns of a node are summarised by the
// model in a separate call (no tools, max_completion_tokens the spec's context.summaryTokens), recorded
// as a context_summary event, never spoken, and the examiner's next request carries the
// model's summary instead of the extractive one. A failing summary call leaves the extractive
// summary in place with a summary_failed system_error; an over-long one is cut to the budget.
// Before, the history was only ever summarised extractively, with no call and no event.
func TestModelSummary(t *testing.T) {
	const modelText = "The candidate, Ada, proposed a hybrid buffet and eggs cooked to order for business travellers."
	for _, tt := range []struct {
		name    string
		answer  openaitest.Behaviour
		wantErr bool   // a summary_failed system_error, the extractive summary standing
		want    string // the summary the next request carries
	}{
		{"model summary", openaitest.Content(modelText, openaitest.TokenUsage(180, 25)), false, modelText},
		{"failing call", openaitest.Status(500), true, "Examiner: You are meeting with the hotel's food and beverage team. Candidate: We could run a hybrid buffet."},
		{"over budget", openaitest.Content(strings.Repeat("The candidate talked about the buffet. ", 200)), false, "The candidate talked about the buffet."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			exam := runtimetest.DemoExam(t, func(s string) string { return s + "context: {summaryTokens: 150}\n" })
			srv := openaitest.New(t, openaitest.WithPlainChat(func(*openaitest.ChatRequest) openaitest.Behaviour { return tt.answer }))
			srv.Enqueue(openaitest.ToolCall(observationArgs("Thank you, Ada.", true)))
			for i := range 6 {
				srv.Enqueue(openaitest.ToolCall(observationArgs(fmt.Sprintf("I see. What else would you change, point %d?", i+1), false)))
			}
			c, evs := startController(t, exam, newExaminer(t, srv, fast()...), runtime.WithContextBudget(5, 4000))
			for _, said := range []string{"My name is Ada and I manage the front desk.", "We could run a hybrid buffet.",
				"Eggs cooked to order for business travellers.", "Costs would rise by about ten percent.", "We would train two more cooks."} {
				if err := c.SubmitTurn(context.Background(), runtime.Turn{Text: said, Source: runtime.SourceTyped}); err != nil {
					t.Fatal(err)
				}
			}
			var plain []*openaitest.ChatRequest
			for _, r := range srv.ChatRequests() {
				if len(r.Tools) == 0 {
					plain = append(plain, r)
				}
			}
			if len(plain) == 0 {
				t.Fatal("no summary call was made")
			}
			if r := plain[0]; r.MaxCompletionTokens != 150 || r.Stream || !strings.Contains(dump(r.Messages), "Candidate: We could run a hybrid buffet.") {
				t.Errorf("summary call: max_completion_tokens %d stream %v\n%s", r.MaxCompletionTokens, r.Stream, dump(r.Messages))
			}
			sums := evs.payloads(t, runtime.EventContextSummary)
			var failed []runtime.Payload
			for _, p := range evs.payloads(t, runtime.EventSystemError) {
				if p.(*runtime.SystemErrorPayload).Code == runtime.CodeSummaryFailed {
					failed = append(failed, p)
				}
			}
			if tt.wantErr {
				if len(sums) != 0 || len(failed) == 0 {
					t.Fatalf("a failing call: %d context_summary, %d summary_failed", len(sums), len(failed))
				}
			} else {
				if len(sums) == 0 || len(failed) != 0 {
					t.Fatalf("%d context_summary, %d summary_failed", len(sums), len(failed))
				}
				s := sums[0].(*runtime.ContextSummaryPayload)
				if len(s.Summary) > 150*4 || !strings.HasPrefix(s.Summary, tt.want) || s.Compression != 1 || s.Messages == 0 {
					t.Errorf("context_summary %+v", s)
				}
				if tt.name == "model summary" && !s.Usage.Known() {
					t.Errorf("the summary call's usage is not recorded: %+v", s.Usage)
				}
			}
			calls := examinerCalls(srv)
			last := dump(calls[len(calls)-1].Messages)
			if !strings.Contains(last, "Summary of earlier turns on this topic: "+tt.want) {
				t.Errorf("the last examiner request does not carry the summary %q:\n%s", tt.want, last)
			}
			if !tt.wantErr && strings.Contains(last, "Candidate: We could run a hybrid buffet.") {
				t.Errorf("the extractive summary is still there beside the model's:\n%s", last)
			}
			for _, p := range evs.payloads(t, runtime.EventSpoken) {
				if strings.Contains(p.(*runtime.SpokenPayload).Text, "candidate") {
					t.Errorf("the summary was spoken: %q", p.(*runtime.SpokenPayload).Text)
				}
			}
		})
	}
}
