package runtime_test

import (
	"testing"

	"github.com/examtui/examtui/runtime"
)

// TestAdminImmediateOutlived: an examiner advances the exam while an immediate instruction's
// examiner call runs (mu is not held during the call, so the control goes through). The reply
// belongs to a node the exam has left: it is not spoken, the instruction is recorded as failed,
// and the next immediate instruction, in the new node, runs and is spoken.
func TestAdminImmediateOutlived(t *testing.T) {
	ex := &scriptedExaminer{}
	h := newHarness(t, compileTestExam(t, "basic.yaml", nil), ex)
	h.start() // in "intro"; its next node is "plan"
	ex.replies = append(ex.replies, scriptedReply{args: `{"spokenText":"Stale words."}`, during: func() {
		if err := h.c.Control(h.ctx, runtime.ControlAdvance, "proctor"); err != nil {
			t.Errorf("advance during the admin run: %v", err)
		}
	}})
	if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminImmediate, Text: "Say hello."}); err != nil {
		t.Fatal(err)
	}
	a := payloads[*runtime.AdminInstructionPayload](h)
	var statuses []runtime.AdminStatus
	for _, p := range a {
		if p.Mode == runtime.AdminImmediate {
			statuses = append(statuses, p.Status)
		}
	}
	if len(statuses) != 2 || statuses[0] != runtime.AdminReceived || statuses[1] != runtime.AdminFailed {
		t.Fatalf("immediate instruction statuses %v, want received, failed", statuses)
	}
	if e := payloads[*runtime.SystemErrorPayload](h); len(e) != 1 || e[0].Code != runtime.CodeAdminFailed || e[0].NodeID != "intro" {
		t.Fatalf("errors %+v", e)
	}
	for _, s := range payloads[*runtime.SpokenPayload](h) {
		if s.Text == "Stale words." {
			t.Fatalf("the outlived reply was spoken: %+v", s)
		}
	}
	if s := h.c.Snapshot(); s.NodeID != "plan" {
		t.Fatalf("the advance did not move the exam: %+v", s)
	}
	// The next immediate instruction runs in the new node.
	ex.push(`{"spokenText":"Hello again."}`)
	if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminImmediate, Text: "Greet."}); err != nil {
		t.Fatal(err)
	}
	spoken := payloads[*runtime.SpokenPayload](h)
	if last := spoken[len(spoken)-1]; last.Text != "Hello again." || last.Source != runtime.SpokenAdmin {
		t.Fatalf("last spoken %+v, want the second instruction's reply", last)
	}
}
