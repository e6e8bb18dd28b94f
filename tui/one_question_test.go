package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestGuardrailsPaneOneQuestion: the real LLM examiner (go-openai against the test server)
// stacks three questions in one reply; the candidate hears the first, and the console's
// Guardrails pane shows the interception: what was said and what was not.
func TestGuardrailsPaneOneQuestion(t *testing.T) {
	srv := openaitest.New(t)
	ex, err := llm.New(llm.WithBaseURL(srv.URL()), llm.WithAPIKey("sk-test-not-a-secret"), llm.WithHTTPClient(srv.Client()),
		llm.WithRequestTimeout(2*time.Second), llm.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close() })
	rec := &runtime.Recorder{}
	clock := runtime.NewVirtualClock(fixtureStart)
	c, err := runtime.NewController(runtimetest.DemoExam(t, nil), ex, runtime.WithClock(clock), runtime.WithSink(runtime.NewFanout(rec)), runtime.WithSessionID("s"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(openaitest.ToolCall(runtimetest.Args{AnswerQuality: "substantive", NeedsFollowUp: true, FollowUpType: "probe",
		SpokenText: "Thanks, Ada. What course are you on? How long have you studied? And why hospitality?"}.String()))
	clock.Advance(3 * time.Second)
	if err := c.SubmitTurn(ctx, runtime.Turn{Text: "My name is Ada.", Confidence: 0.95, Source: runtime.SourceMic}); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, hotelInfo, &fakeBackend{}, WithEventClock())
	m.Apply(rec.Events()...)
	got := Plain(strings.Join(viewAt(guardrailsOf(m), 100, 12), "\n"))
	for _, want := range []string{"one_question · output_intercepted · keep_first · 3 questions in one line", "said: Thanks, Ada. What course are you on?",
		"was:  Thanks, Ada. What course are you on? How long have you studied? And why hospitality?"} {
		if !strings.Contains(got, want) {
			t.Errorf("the Guardrails pane lacks %q:\n%s", want, got)
		}
	}
	var heard []string
	for _, p := range runtimetest.Payloads[*runtime.SpokenPayload](t, rec.Events()) {
		heard = append(heard, p.Text)
	}
	if all := strings.Join(heard, " | "); strings.Contains(all, "How long") || !strings.Contains(all, "What course are you on?") {
		t.Errorf("the candidate heard %s", all)
	}
}
