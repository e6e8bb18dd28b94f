package livekit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// TestImmediateRejoinIsARejoin: a candidate whose client dies and joins again at once with the
// same token (a new participant id, before the server noticed the old connection go) is
// recorded as leaving and rejoining, the exam pauses and resumes, and the new connection gets
// the history from the first event and the question again within 2 s.
func TestImmediateRejoinIsARejoin(t *testing.T) {
	e, ctrl, _ := roomExam(t, "presence-rejoin")
	ctx := context.Background()
	exr := e.dial(t, "examiner-ana", livekit.RoleExaminer)
	cmd := startCandidateProcess(t, e, "candidate-1")
	e.waitAudience(t, "candidate-1", "examiner-ana")
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	w := &presenceWatcher{t: t, ch: exr.Events()}
	w.await(15*time.Second, "candidate candidate-1 joined")
	question := ctrl.Snapshot().LastQuestion
	if question == "" {
		t.Fatal("no question asked at the start")
	}

	// The old client dies without a word: to the server it is still there when the new one joins.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	rejoined := time.Now()
	again := dialClient(t, e.srv, "candidate-1", livekit.RoleCandidate)
	got := map[int64]bool{}
	repeated := false
	deadline := time.After(2 * time.Second)
	for {
		select {
		case ev := <-again.Events():
			got[ev.Seq] = true
			p, err := ev.Decode()
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := p.(*runtime.SpokenPayload); ok && ev.Seq > 1 && strings.Contains(s.Text, question) {
				repeated = true
			}
			// The history from the first event, and the question asked again.
			if repeated && got[1] {
				t.Logf("question repeated %s after the rejoin (seq %d)", time.Since(rejoined).Round(time.Millisecond), ev.Seq)
				w.await(5*time.Second, "resumed: candidate rejoined")
				if !strings.HasPrefix(w.lines[len(w.lines)-2], "candidate candidate-1 rejoined") ||
					w.lines[len(w.lines)-3] != "paused: candidate left" ||
					!strings.HasPrefix(w.lines[len(w.lines)-4], "candidate candidate-1 left (") {
					t.Fatalf("the examiner saw %q", w.lines)
				}
				return
			}
		case <-deadline:
			t.Fatalf("2 s after an immediate rejoin: history from seq 1: %v; question repeated: %v (%q)", got[1], repeated, question)
		}
	}
}
