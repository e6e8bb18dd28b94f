package runtime_test

import (
	"errors"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// TestExitReason: a node_exit's reason is either a transition reason (the spec's word, kept as
// it is) or one of the exit words; Transition tells the two apart, also for a word this version
// does not know (a newer writer's transition reason stays a transition).
func TestExitReason(t *testing.T) {
	for _, r := range spec.Reasons {
		e := runtime.TransitionExit(r)
		got, err := runtime.ParseExitReason(r.String())
		if e.String() != r.String() || !e.Valid() || e.Transition() != r || err != nil || got != e {
			t.Errorf("transition %s: exit %q valid=%v transition=%q parse=%q, %v", r, e, e.Valid(), e.Transition(), got, err)
		}
	}
	for _, e := range runtime.ExitReasons {
		if e.Transition() != "" || !e.Valid() {
			t.Errorf("%s: transition %q valid=%v, want no transition", e, e.Transition(), e.Valid())
		}
	}
	if z := runtime.ExitUnknown; z.Transition() != "" || z.Valid() {
		t.Errorf("zero exit reason: transition %q valid=%v", z.Transition(), z.Valid())
	}
	newer := runtime.ExitReason("teleported")
	if newer.Valid() || newer.Transition() != "teleported" {
		t.Errorf("unknown exit reason: valid=%v transition=%q", newer.Valid(), newer.Transition())
	}
	if got, err := runtime.ParseExitReason("teleported"); got != "" || !errors.Is(err, runtime.ErrUnknownValue) {
		t.Errorf("ParseExitReason(teleported) = %q, %v", got, err)
	}
}

// TestStoredNodeWords reads a stored stream holding every exit reason, warning scope, guardrail
// action and failure policy, plus words a newer writer might use: known words compare equal to
// the constants, unknown ones keep their text and are not Valid (TestStoredEventsRoundTrip
// re-encodes the same file byte for byte).
func TestStoredNodeWords(t *testing.T) {
	const file = "testdata/stored/exit-words.jsonl"
	exits := []struct {
		seq        int64
		want       runtime.ExitReason
		transition spec.Reason
		valid      bool
	}{
		{1, runtime.TransitionExit(spec.ReasonSkipped), spec.ReasonSkipped, true},
		{2, runtime.ExitEnded, "", true},
		{3, runtime.ExitEndNode, "", true},
		{4, runtime.ExitFinished, "", true},
		{5, "teleported", "teleported", false},
	}
	for _, tc := range exits {
		p := storedEventIn(t, file, tc.seq).(*runtime.NodeExitPayload)
		if p.Reason != tc.want || p.Reason.Transition() != tc.transition || p.Reason.Valid() != tc.valid {
			t.Errorf("seq %d: reason %q transition %q valid=%v, want %q %q %v", tc.seq, p.Reason, p.Reason.Transition(), p.Reason.Valid(), tc.want, tc.transition, tc.valid)
		}
	}
	scopes := map[int64]runtime.WarningScope{6: runtime.WarningExam, 7: runtime.WarningNode, 8: "section"}
	for seq, want := range scopes {
		p := storedEventIn(t, file, seq).(*runtime.TimeWarningPayload)
		if p.Scope != want || p.Scope.Valid() != (seq != 8) {
			t.Errorf("seq %d: scope %q valid=%v, want %q", seq, p.Scope, p.Scope.Valid(), want)
		}
	}
	if p := storedEventIn(t, file, 9).(*runtime.GuardrailTriggeredPayload); p.Action != runtime.GuardrailTransition {
		t.Errorf("seq 9: action %q", p.Action)
	}
	if p := storedEventIn(t, file, 10).(*runtime.GuardrailTriggeredPayload); p.Action != "quarantined" || p.Action.Valid() {
		t.Errorf("seq 10: action %q valid=%v", p.Action, p.Action.Valid())
	}
	if p := storedEventIn(t, file, 11).(*runtime.ExaminerSwitchedPayload); p.Policy != spec.ExaminerFailureInterrupt {
		t.Errorf("seq 11: policy %q", p.Policy)
	}
	if p := storedEventIn(t, file, 12).(*runtime.ExaminerSwitchedPayload); p.Policy != "escalate" || p.Policy.Valid() {
		t.Errorf("seq 12: policy %q valid=%v", p.Policy, p.Policy.Valid())
	}
}
