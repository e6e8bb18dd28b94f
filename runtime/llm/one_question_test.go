package llm_test

import (
	"testing"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestLLMOneQuestionPerTurn: a model reply stacking three questions reaches the candidate as its
// first question, whole or streamed, and the interception is recorded as a guardrail_triggered.
func TestLLMOneQuestionPerTurn(t *testing.T) {
	const stacked = "You mentioned the buffet queues. What would you change first? How much would it cost? And who would do the work?"
	const heard = "You mentioned the buffet queues. What would you change first?"
	for _, tc := range []struct {
		name  string
		reply openaitest.Behaviour
	}{
		{"whole", openaitest.ToolCall(runtimetest.Args{AnswerQuality: "substantive", NeedsFollowUp: true, FollowUpType: "probe", SpokenText: stacked}.String())},
		{"streamed", openaitest.ToolCall(runtimetest.Args{AnswerQuality: "substantive", NeedsFollowUp: true, FollowUpType: "probe", SpokenText: stacked}.String(),
			openaitest.Streamed(9, 0))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := startLLMExam(t, nil)
			x.turn("The queue at the buffet is the main problem for the guests.", tc.reply)
			if got := x.lastSpoken(); got != heard {
				t.Fatalf("the candidate heard %q, want %q", got, heard)
			}
			var hit *runtime.GuardrailTriggeredPayload
			for _, g := range eventsOf[*runtime.GuardrailTriggeredPayload](x) {
				if g.Guardrail == string(runtime.FilterOneQuestion) {
					hit = g
				}
			}
			if hit == nil || hit.OriginalText != stacked || hit.ReplacementText != heard || hit.Action != runtime.GuardrailOutputIntercepted {
				t.Fatalf("one_question interception %+v", hit)
			}
		})
	}
}
