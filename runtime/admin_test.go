package runtime_test

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

func TestAdminQueued(t *testing.T) {
	h, ex := intoPlan(t, nil)
	for _, text := range []string{"Ask about backups.", "Keep it short."} {
		if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminQueued, Text: text, Sender: "dr-lee"}); err != nil {
			t.Fatal(err)
		}
	}
	if s := h.c.Snapshot(); s.QueuedAdmin != 2 {
		t.Fatalf("queued %d", s.QueuedAdmin)
	}
	ex.push(runtimetest.Args{SpokenText: "What about backups?"}.String(), runtimetest.Args{SpokenText: "Go on."}.String())
	h.say("We move everything on Saturday.")
	req := ex.reqs[len(ex.reqs)-1]
	if strings.Join(req.AdminInstructions, "|") != "Ask about backups.|Keep it short." {
		t.Fatalf("admin in request %q", req.AdminInstructions)
	}
	var admin []string
	for _, m := range req.Messages {
		if strings.HasPrefix(m.Content, "ADMIN INSTRUCTION") {
			admin = append(admin, m.Content)
		}
	}
	if len(admin) != 2 || !strings.Contains(admin[0], "backups") || req.Messages[len(req.Messages)-1].Role != "user" {
		t.Fatalf("messages %+v", req.Messages)
	}
	var statuses []string
	for _, p := range payloads[*runtime.AdminInstructionPayload](h) {
		statuses = append(statuses, p.Status.String()+":"+p.Text+":"+p.Sender)
	}
	want := "received:Ask about backups.:dr-lee received:Keep it short.:dr-lee consumed:Ask about backups.:dr-lee consumed:Keep it short.:dr-lee"
	if strings.Join(statuses, " ") != want {
		t.Fatalf("admin events %v", statuses)
	}
	h.say("And test it first.")
	if req := ex.reqs[len(ex.reqs)-1]; len(req.AdminInstructions) != 0 {
		t.Fatalf("consumed instructions sent again: %q", req.AdminInstructions)
	}
}

func TestAdminImmediate(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.push(runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, SpokenText: "What could go wrong?"}.String())
	h.say("It should be fine.")
	h.wait(20 * time.Second)
	before := h.c.Snapshot()
	ex.push(runtimetest.Args{AnswerQuality: "unclear", SpokenText: "Could you speak up a little, please?"}.String())
	if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminImmediate, Text: "Ask the candidate to speak up.", Sender: "dr-lee"}); err != nil {
		t.Fatal(err)
	}
	req := ex.reqs[len(ex.reqs)-1]
	if !req.AdminOnly || len(req.AdminInstructions) != 1 || !strings.Contains(req.Messages[len(req.Messages)-1].Content, "IMMEDIATE") {
		t.Fatalf("admin request %+v", req)
	}
	sp := payloads[*runtime.SpokenPayload](h)
	if last := sp[len(sp)-1]; last.Source != runtime.SpokenAdmin || last.Text != "Could you speak up a little, please?" {
		t.Fatalf("spoken %+v", last)
	}
	after := h.c.Snapshot()
	if after.NodeID != before.NodeID || after.FollowUps != before.FollowUps || after.NodeElapsed != before.NodeElapsed || after.LastQuestion != before.LastQuestion {
		t.Fatalf("admin run changed the node: before %+v after %+v", before, after)
	}
	a := payloads[*runtime.AdminInstructionPayload](h)
	if len(a) != 2 || a[0].Status != runtime.AdminReceived || a[1].Status != runtime.AdminApplied || a[1].Sender != "dr-lee" || a[1].Mode != runtime.AdminImmediate {
		t.Fatalf("admin events %+v", a)
	}
	// The next turn carries the admin exchange in its context.
	ex.push(runtimetest.Args{SpokenText: "Go on."}.String())
	h.say("SORRY. IT SHOULD BE FINE.")
	found := false
	for _, m := range ex.reqs[len(ex.reqs)-1].Messages {
		found = found || strings.Contains(m.Content, "speak up a little")
	}
	if !found {
		t.Fatal("admin reply missing from the context")
	}
}

func TestAdminImmediateFailure(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.replies = append(ex.replies, scriptedReply{args: `{"signals":[]}`})
	if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminImmediate, Text: "Say hello."}); err != nil {
		t.Fatal(err)
	}
	a := payloads[*runtime.AdminInstructionPayload](h)
	if len(a) != 2 || a[1].Status != runtime.AdminFailed || a[1].Sender != "examiner" {
		t.Fatalf("admin events %+v", a)
	}
	if e := payloads[*runtime.SystemErrorPayload](h); len(e) != 1 || e[0].Code != runtime.CodeAdminFailed {
		t.Fatalf("errors %+v", e)
	}
}
