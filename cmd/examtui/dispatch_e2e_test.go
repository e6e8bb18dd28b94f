package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// TestDispatchBeyondCapacity: a pool of one worker with --max-exams 1. The first dispatch is
// taken; a second one, which the full pool cannot take, fails clearly at its --wait and leaves
// no dispatch behind. (Before, it printed an id, exited 0, and the exam never ran.)
func TestDispatchBeyondCapacity(t *testing.T) {
	p := newPool(t)
	p.startWorker("w1", "--max-exams", "1")
	p.dispatchExam("first", "hotel", "first")
	cd := p.join("first", "cand-first")
	testutil.Eventually(t, 30*time.Second, func() bool { return cd.has(0, runtime.EventSpoken, "") }, "the first exam's opening")

	start := time.Now()
	out, errOut, err := p.tryDispatch("full", "hotel", "full", "--wait", "12s")
	if !errors.Is(err, errNotTaken) || out != "" {
		t.Fatalf("a dispatch beyond the pool's capacity: out %q err %v (stderr %q), want %v and no id", out, err, errOut, errNotTaken)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the refused dispatch took %v with --wait 12s", took)
	}
	if !strings.Contains(err.Error(), `room "full"`) || !strings.Contains(err.Error(), "withdrawn") {
		t.Errorf("the error does not say which room and what became of the dispatch: %v", err)
	}
	client := lksdk.NewAgentDispatchServiceClient(httpURL(p.srv.URL), p.srv.APIKey, p.srv.Secret)
	left, err := client.ListDispatch(context.Background(), &lkproto.ListAgentDispatchRequest{Room: "full"})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range left.GetAgentDispatches() {
		if d.GetAgentName() == e2eAgent {
			t.Errorf("a dispatch nobody took is left on the server: %v", d)
		}
	}

}
