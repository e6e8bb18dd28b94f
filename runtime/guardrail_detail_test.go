package runtime_test

import (
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestGuardrailDetailParts: an output filter's interception carries its action, why it fired
// and the words that fired it as fields of their own, and the one-line detail sessions have
// always stored, unchanged ("ACTION: REASON: PHRASE"), so a reader never parses it back.
func TestGuardrailDetailParts(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.push(runtimetest.Args{AnswerQuality: "substantive", SpokenText: "Well done. What would you test first?"}.String())
	h.say("Nothing was tested, so I would rehearse the move on a copy first.")
	var got *runtime.GuardrailTriggeredPayload
	for _, g := range payloads[*runtime.GuardrailTriggeredPayload](h) {
		if g.Guardrail == "forbidden_action" {
			got = g
		}
	}
	if got == nil {
		t.Fatalf("no forbidden_action interception; spoken %q", h.spoken())
	}
	if got.FilterAction == "" || got.Reason != "evaluative praise or judgement" || got.Phrase != "well done" {
		t.Errorf("parts: action %q, reason %q, phrase %q", got.FilterAction, got.Reason, got.Phrase)
	}
	if want := got.FilterAction + ": evaluative praise or judgement: well done"; got.Detail != want {
		t.Errorf("detail %q, want %q", got.Detail, want)
	}
}
