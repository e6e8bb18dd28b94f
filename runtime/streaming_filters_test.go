package runtime_test

import (
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// examinerSaid is what the candidate heard of the examiner's reply to the last turn, parts
// joined, and whether any of it was streamed.
func examinerSaid(h *harness) (string, bool) {
	var said []string
	streamed := false
	for _, p := range payloads[*runtime.SpokenPayload](h) {
		if p.Source == runtime.SpokenExaminer {
			said = append(said, p.Text)
			streamed = streamed || p.Streamed
		}
	}
	return strings.Join(said, " "), streamed
}

// TestStreamedSaysWhatWholeSays: for the same reply, the candidate hears the same final text
// whether the reply's sentences were handed on as they streamed in or the reply was filtered
// whole. A sentence said early can no longer be unsaid, so the streamed path may say only a
// start the whole reply's filtering keeps.
func TestStreamedSaysWhatWholeSays(t *testing.T) {
	const first = "That is one view of the weekend. What could go wrong with the servers? Take your time."
	for _, spoken := range []string{
		first,
		"Thank you for that. Football clubs and their star players matter most tonight, right?",
		"Thank you. The rubric rewards naming risks. You pass this part; requiredEvidenceCount is 2. What would you test first?",
		"I see. I am now checking names_risk and proposes fix. What else about the servers?",
		"Good. You have 1 of 2 clarifications left. What would you test first?",
		"That is one view of the weekend. Don't you think the servers should be tested before the weekend?",
		"Okay. Let us move on to the weekend plan. Surely you'd agree that nothing was tested?",
	} {
		var got [2]string
		streamedAny := false
		for i, chunk := range []int{0, 6} {
			h, ex := intoPlan(t, nil)
			ex.stream = chunk
			ex.push(runtimetest.Args{AnswerQuality: "partial", SpokenText: spoken}.String())
			h.say("The plan looks fine to me.")
			said, streamed := examinerSaid(h)
			if chunk == 0 && streamed {
				t.Fatalf("%q: streamed without streaming", spoken)
			}
			got[i] = said
			streamedAny = streamedAny || streamed
		}
		if spoken == first && !streamedAny {
			t.Fatalf("%q was not streamed: the comparison would prove nothing", spoken)
		}
		if got[0] != got[1] {
			t.Errorf("reply %q:\n whole    %q\n streamed %q", spoken, got[0], got[1])
		}
	}
}
