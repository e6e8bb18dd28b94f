package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestLLMInstructionNotReadOut: the go-openai examiner is given a supervising examiner's
// instruction as guidance; a reply that reads it out is cut by the instruction_echo guard, in
// an immediate run and in a turn carrying a queued instruction, and the instruction is
// recorded applied or consumed (the model was given it).
func TestLLMInstructionNotReadOut(t *testing.T) {
	const tired = "The candidate looks tired, wrap up the breakfast question soon."
	const echo = "The candidate looks tired, so let's wrap up the breakfast question soon. What would you change first about breakfast?"
	for _, mode := range []runtime.AdminMode{runtime.AdminImmediate, runtime.AdminQueued} {
		t.Run(mode.String(), func(t *testing.T) {
			x := startLLMExam(t, nil)
			reply := openaitest.ToolCall(runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, FollowUpType: "probe", SpokenText: echo}.String())
			if mode == runtime.AdminImmediate {
				x.srv.Enqueue(reply)
				if err := x.c.Admin(context.Background(), runtime.AdminInstruction{Mode: mode, Text: tired, Sender: "dr-lee"}); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := x.c.Admin(context.Background(), runtime.AdminInstruction{Mode: mode, Text: tired, Sender: "dr-lee"}); err != nil {
					t.Fatal(err)
				}
				x.turn("We could open a second buffet line for the guests in a hurry.", reply)
			}
			reqs := x.srv.ChatRequests()
			given := false
			for _, m := range reqs[len(reqs)-1].Messages {
				given = given || strings.Contains(m.Content, tired)
			}
			if !given {
				t.Fatal("the model was not given the instruction")
			}
			for _, sp := range eventsOf[*runtime.SpokenPayload](x) {
				if strings.Contains(sp.Text, "looks tired") {
					t.Fatalf("the instruction was read out: %q", sp.Text)
				}
			}
			if said := x.lastSpoken(); !strings.HasSuffix(said, "What would you change first about breakfast?") {
				t.Fatalf("said %q", said)
			}
			hit := false
			for _, g := range eventsOf[*runtime.GuardrailTriggeredPayload](x) {
				hit = hit || g.Guardrail == "instruction_echo" && g.OriginalText == echo
			}
			if !hit {
				t.Fatal("no instruction_echo guardrail_triggered")
			}
			want := runtime.AdminApplied
			if mode == runtime.AdminQueued {
				want = runtime.AdminConsumed
			}
			if a := eventsOf[*runtime.AdminInstructionPayload](x); a[len(a)-1].Status != want {
				t.Fatalf("instruction ended %s, want %s", a[len(a)-1].Status, want)
			}
		})
	}
}
