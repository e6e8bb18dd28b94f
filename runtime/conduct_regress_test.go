package runtime_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// Regression tests for the ways the candidate's words were lost or misjudged off the happy
// path. Each failed on the controller before the fix it names.

// TestAnswerEndingPauseIsObserved: "Can we pause for a moment?" pauses the exam; the answer that
// comes next resumes it and is observed (it used to only resume it, never observed, so the
// proposal it made never became evidence). "I'm ready." only resumes, recorded not_assessed.
func TestAnswerEndingPauseIsObserved(t *testing.T) {
	h := offlineInBreakfast(t)
	h.say("Can we pause for a moment?")
	if s := h.c.Snapshot(); s.State != runtime.StatePaused {
		t.Fatalf("state %s after the pause request", s.State)
	}
	h.say("We could open a second buffet line, or another way is a grab-and-go counter.")
	if s := h.c.Snapshot(); s.State != runtime.StateInProgress || !slices.ContainsFunc(s.Ledger, func(e runtime.LedgerEntry) bool { return e.SignalType == "proposes_options" }) {
		t.Fatalf("after the answer: state %s, ledger %+v (want in progress with proposes_options)", s.State, s.Ledger)
	}
	h.say("Can we pause for a moment?")
	h.say("Okay, I'm ready.")
	if s := h.c.Snapshot(); s.State != runtime.StateInProgress {
		t.Fatalf("state %s after the return", s.State)
	}
	rs := payloads[*runtime.RecoveryPayload](h)
	if len(rs) != 1 || rs[0].Kind != runtime.RecoveryNotAssessed || rs[0].Reason != runtime.NotAssessedReturnFromPause {
		t.Fatalf("recoveries %+v, want one not_assessed return_from_pause", rs)
	}
	if err := runtimetest.CheckAssessedOnce(h.rec.Events()); err != nil {
		t.Fatal(err)
	}
}

// TestClarificationAfterCheckInAsksTheQuestion: after the silence check-in ("Take your time.
// Would you like me to repeat the question?"), a clarification restates the node's question,
// not the check-in's (it used to say "To put it in context: ... Would you like me to repeat
// the question?").
func TestClarificationAfterCheckInAsksTheQuestion(t *testing.T) {
	h := offlineInBreakfast(t)
	s0 := len(h.spoken())
	checkedIn := func() bool {
		said := h.spoken()[s0:]
		return len(said) > 0 && strings.Contains(said[len(said)-1], "Would you like me to repeat the question?")
	}
	for i := 0; i < 60 && !checkedIn(); i++ {
		h.wait(time.Second) // the virtual clock, second by second, up to the check-in
	}
	if !checkedIn() {
		t.Fatalf("no check-in: %q", h.spoken()[s0:])
	}
	h.say("What do you mean by that?")
	last := h.spoken()[len(h.spoken())-1]
	if !strings.HasSuffix(last, "What would you do?") || strings.Contains(last, "repeat the question") {
		t.Fatalf("clarification said %q, want the node's question", last)
	}
	if q := h.c.Snapshot().LastQuestion; strings.Contains(q, "repeat the question") {
		t.Fatalf("the question on the table became the check-in's: %q", q)
	}
}

// TestQueuedInstructionNotConsumedWhenNotSaid: a queued instruction whose reply is never said
// (the evidence moved the exam on, here to its end) is not consumed; it used to be marked
// consumed.
func TestQueuedInstructionNotConsumedWhenNotSaid(t *testing.T) {
	h, ex := intoPlan(t, nil)
	if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminQueued, Text: "Ask about backups.", Sender: "dr-lee"}); err != nil {
		t.Fatal(err)
	}
	two := []runtime.Signal{sig("names_risk", "nothing was tested"), sig("proposes_fix", "rehearse the move")}
	ex.push(runtimetest.Args{Signals: two, AnswerQuality: "substantive", EvidenceSufficient: true,
		SpokenText: "Could you tell me about backups?"}.String())
	h.say("Nothing was tested, so I would rehearse the move.")
	if n := h.c.Snapshot().NodeID; n == "plan" {
		t.Fatal("the exam did not move on")
	}
	for _, p := range payloads[*runtime.AdminInstructionPayload](h) {
		if p.Status == runtime.AdminConsumed {
			t.Fatalf("consumed though its reply was never said: %+v", p)
		}
	}
}

// TestVerdictRewordingsNeverSaid: the rewordings that reached candidates through an examiner's
// reply are intercepted by forbidden_action and never said.
func TestVerdictRewordingsNeverSaid(t *testing.T) {
	for _, v := range []string{"You failed that part.", "You got full marks on that.", "Your score so far is 10 out of 12."} {
		h, ex := intoPlan(t, nil)
		ex.push(runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, FollowUpType: "probe", SpokenText: v + " What would you test first?"}.String())
		h.say("I would just move the servers.")
		for _, s := range h.spoken() {
			if strings.Contains(s, strings.TrimSuffix(v, ".")) {
				t.Fatalf("said %q", s)
			}
		}
		if g := payloads[*runtime.GuardrailTriggeredPayload](h); len(g) == 0 || g[0].Guardrail != runtime.FilterForbiddenAction.String() {
			t.Fatalf("%q: guardrails %+v, want forbidden_action", v, g)
		}
	}
}
