package runtime_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestControlPromote: promote is a control action too, so every command channel that carries
// controls (the room's wire, the store's command channel, scripts) can promote a queued
// instruction; it does what PromoteQueued does.
func TestControlPromote(t *testing.T) {
	a, err := runtime.ParseControlAction("promote")
	if err != nil || a != runtime.ControlPromote || a.String() != "promote" {
		t.Fatalf("ParseControlAction(promote) = %v, %v", a, err)
	}
	h, ex := intoPlan(t, nil)
	if err := h.c.Control(h.ctx, runtime.ControlPromote, "dr-lee"); !errors.Is(err, runtime.ErrNothingQueued) {
		t.Fatalf("promote with nothing queued: %v, want ErrNothingQueued", err)
	}
	if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminQueued, Text: "Tell the candidate to speak up.", Sender: "dr-lee"}); err != nil {
		t.Fatal(err)
	}
	ex.push(runtimetest.Args{SpokenText: "Could you speak up, please?"}.String())
	if err := h.c.Control(h.ctx, runtime.ControlPromote, "dr-lee"); err != nil {
		t.Fatal(err)
	}
	var st []string
	for _, p := range payloads[*runtime.AdminInstructionPayload](h) {
		st = append(st, fmt.Sprintf("%s:%s", p.Mode, p.Status))
	}
	if got := strings.Join(st, " "); got != "queued:received queued:promoted immediate:received immediate:applied" {
		t.Fatalf("admin events %s", got)
	}
	if h.c.Snapshot().QueuedAdmin != 0 {
		t.Fatal("the promoted instruction is still queued")
	}
}
