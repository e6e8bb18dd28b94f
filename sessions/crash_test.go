package sessions

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

const (
	crashChildEnv   = "EXAMTUI_SESSIONS_CRASH_CHILD"
	crashChildIDEnv = "EXAMTUI_SESSIONS_CRASH_ID"
)

// stdoutSub prints each delivered seq with one write(2), so every line the parent reads was
// printed after the journal delivered (hence committed) that event.
type stdoutSub struct{}

func (stdoutSub) Deliver(ev runtime.Event) {
	_, _ = os.Stdout.WriteString("seq " + strconv.FormatInt(ev.Seq, 10) + "\n")
}

// crashPayload is the scripted, never-ending stream the child writes: the kinds of event a
// live exam produces, none of them ending it.
func crashPayload(seq int64) runtime.Payload {
	const node = "scenario-hotel-breakfast"
	switch seq % 5 {
	case 1:
		return cand(node, fmt.Sprintf("seg-%d", seq), "We could open a grab-and-go counter for business travellers.", 0.9, seq*100)
	case 2:
		return obs(node, int(seq), true, "continue", "", runtime.Latency{LLMCompleteMs: 600, TotalMs: 1200})
	case 3:
		return &runtime.EvidenceUpdatePayload{NodeID: node, SignalType: "proposes_options", Excerpt: "grab-and-go counter",
			Confidence: 0.8, Coverage: 1.0 / 3, Accepted: 1, Required: 2}
	case 4:
		return &runtime.SpokenPayload{NodeID: node, Text: "Is there another way we could approach this?", Source: runtime.SpokenExaminer}
	}
	return &runtime.TimeWarningPayload{Scope: runtime.WarningNode, NodeID: node, RemainingSec: 60}
}

// crashEvents is n events of crashPayload's mix for session id, a millisecond apart from
// fixtureStart: the load the benchmarks write.
func crashEvents(t testing.TB, id string, n int) []runtime.Event {
	s := newScript(t, id, fixtureStart)
	for seq := int64(1); seq <= int64(n); seq++ {
		s.after(time.Millisecond, crashPayload(seq))
	}
	return s.events
}

func runCrashChild(dir, id string) int {
	ctx := context.Background()
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		return 3
	}
	st, err := OpenURL(ctx, dir)
	if err != nil {
		return fail(err)
	}
	if _, err := st.Create(ctx, Meta{ID: id, Exam: testExam(), Candidate: "crash"}); err != nil {
		return fail(err)
	}
	batch := 1 + rand.IntN(64)
	j, err := st.Journal(ctx, id, WithSubscribers(stdoutSub{}), WithMaxBatch(batch), WithQueueSize(128))
	if err != nil {
		return fail(err)
	}
	ts := time.Now()
	for seq := int64(1); ; seq++ {
		ts = ts.Add(time.Millisecond)
		ev, err := runtime.NewEvent(id, seq, ts, crashPayload(seq))
		if err != nil {
			return fail(err)
		}
		if err := j.Publish(ev); err != nil {
			return fail(err)
		}
	}
}

// TestCrashRecovery kills a real process writing through the journal at random points and
// checks, each time, that everything it showed is stored, seq has no gap and the session is
// marked interrupted on reopen.
func TestCrashRecovery(t *testing.T) { forEachEngine(t, testCrashRecovery) }

func testCrashRecovery(t *testing.T, eng testEngine) {
	iterations := 30
	if testing.Short() {
		iterations = 5
	}
	dir := eng.target(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for i := range iterations {
		id := fmt.Sprintf("crash%03d", i)
		killAfterSeqs := -1
		killAfter := time.Duration(10+rng.IntN(250)) * time.Millisecond
		if i%2 == 0 {
			killAfterSeqs = rng.IntN(600)
		}
		printed := crashOnce(t, dir, id, killAfterSeqs, killAfter)

		st, sess, err := reopenAfterCrash(t, dir, id)
		if err != nil {
			st.Close()
			if len(printed) == 0 {
				continue // killed before the session was created
			}
			t.Fatalf("iteration %d: %d seqs printed but session missing: %v", i, len(printed), err)
		}
		if sess.Status() != StatusInterrupted {
			t.Errorf("iteration %d: status %v, want interrupted", i, sess.Status())
		}
		evs, err := st.LoadEvents(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for k, ev := range evs {
			if ev.Seq != int64(k+1) {
				t.Fatalf("iteration %d: stored seq gap: position %d holds seq %d", i, k+1, ev.Seq)
			}
		}
		if sess.EventCount != int64(len(evs)) {
			t.Errorf("iteration %d: session says %d events, store holds %d", i, sess.EventCount, len(evs))
		}
		for k, seq := range printed {
			if seq != int64(k+1) {
				t.Fatalf("iteration %d: delivered seq %d at position %d", i, seq, k+1)
			}
			if seq > int64(len(evs)) {
				t.Fatalf("iteration %d: seq %d was delivered but is not in the store (%d stored)", i, seq, len(evs))
			}
		}
		t.Logf("iteration %d: killed after %d delivered, %d stored", i, len(printed), len(evs))
		closeStore(t, st)
	}
}

// crashOnce runs the child and SIGKILLs it after it printed killAfterSeqs seqs (when ≥ 0) or
// after killAfter. It returns every seq the child printed.
func crashOnce(t *testing.T, dir, id string, killAfterSeqs int, killAfter time.Duration) []int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, crashChildIDEnv+"="+id)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var printed []int64
	sc := bufio.NewScanner(out)
	timer := time.AfterFunc(killAfter, func() {
		if killAfterSeqs < 0 {
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
	})
	defer timer.Stop()
	if killAfterSeqs == 0 {
		_ = cmd.Process.Signal(syscall.SIGKILL)
	}
	for sc.Scan() {
		line := sc.Text()
		seq, err := strconv.ParseInt(strings.TrimPrefix(line, "seq "), 10, 64)
		if err != nil {
			t.Fatalf("child printed %q", line)
		}
		printed = append(printed, seq)
		if killAfterSeqs > 0 && len(printed) == killAfterSeqs {
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v\n%s", err, stderr.String())
	}
	return printed
}
