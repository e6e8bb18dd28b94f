package livekit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// lateChannel is a client's data channel that opens when the test says so: the packets the bot
// sends before are lost, though the bot's ledger counts them as sent.
type lateChannel struct {
	opened  atomic.Bool
	dropped atomic.Int64 // event packets lost while closed
	after   atomic.Int64 // event packets received once open, repeats included
	open    chan struct{}
	once    sync.Once
}

func newLateChannel(t *testing.T) *lateChannel {
	l := &lateChannel{open: make(chan struct{})}
	t.Cleanup(l.release)
	return l
}

func (l *lateChannel) release() {
	l.once.Do(func() { l.opened.Store(true); close(l.open) })
}

func (l *lateChannel) option() livekit.ClientOption {
	return livekit.WithLateDataChannel(func() bool {
		if !l.opened.Load() {
			l.dropped.Add(1)
			return false
		}
		l.after.Add(1)
		return true
	}, func() { <-l.open })
}

// seqCounter counts the events a client's Events delivers, by seq.
type seqCounter struct {
	mu    sync.Mutex
	count map[int64]int
	kinds map[int64]runtime.EventType
}

func countEvents(t *testing.T, c *livekit.Client) *seqCounter {
	s := &seqCounter{count: map[int64]int{}, kinds: map[int64]runtime.EventType{}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-c.Events():
				if ev.Seq <= 0 {
					continue
				}
				s.mu.Lock()
				s.count[ev.Seq]++
				s.kinds[ev.Seq] = ev.Event
				s.mu.Unlock()
			}
		}
	}()
	return s
}

func (s *seqCounter) snapshot() (map[int64]int, map[int64]runtime.EventType) {
	s.mu.Lock()
	defer s.mu.Unlock()
	count, kinds := map[int64]int{}, map[int64]runtime.EventType{}
	for k, v := range s.count {
		count[k], kinds[k] = v, s.kinds[k]
	}
	return count, kinds
}

// shareOf returns the seqs of the recorded events that role receives.
func shareOf(rec *runtime.Recorder, role livekit.Role) map[int64]bool {
	out := map[int64]bool{}
	for _, ev := range rec.Events() {
		if ev.Seq <= 0 {
			continue
		}
		if _, ok := runtime.CandidateView(ev); ok || role == livekit.RoleExaminer {
			out[ev.Seq] = true
		}
	}
	return out
}

// TestClientSaysReady: a Go client (the roomcheck harness's candidate, `examtui watch`) whose
// data channel opens after the bot has sent it the exam's opening still gets every opening event,
// each exactly once: it says "ready" on its connection, and the bot's answer (every event of its
// share again, ledger or not) brings what was lost; the client keeps each seq once however often
// it is sent. Without the client's "ready" the opening never arrives: the bot counts it as sent.
func TestClientSaysReady(t *testing.T) {
	for _, tc := range []struct {
		name string
		role livekit.Role
	}{
		{"candidate", livekit.RoleCandidate},
		{"examiner", livekit.RoleExaminer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ctrl, rec := roomExam(t, "client-ready-"+tc.name)
			ctx := context.Background()
			late := newLateChannel(t)
			identity := tc.name + "-1"
			// How many event packets had arrived since the channel opened when the bot's first
			// receipt (for the client's ready) came: the ready is answered after its replay.
			var atReceipt atomic.Int64
			atReceipt.Store(-1)
			hook := livekit.WithReceiptHook(func(livekit.Receipt) { atReceipt.CompareAndSwap(-1, late.after.Load()) })
			c := e.dial(t, identity, tc.role, late.option(), hook)
			got := countEvents(t, c)
			e.waitAudience(t, identity)
			if err := ctrl.Start(ctx); err != nil {
				t.Fatal(err)
			}
			// The opening is sent to the client while its channel is closed, and lost.
			testutil.Eventually(t, 15*time.Second, func() bool {
				n := len(shareOf(rec, tc.role))
				return rec.Count(runtime.EventSpoken) > 0 && n > 0 && late.dropped.Load() >= int64(n)
			}, "the opening to be sent to the client before its channel opens")
			opening := shareOf(rec, tc.role)
			late.release()
			testutil.Eventually(t, 15*time.Second, func() bool {
				count, _ := got.snapshot()
				for seq := range opening {
					if count[seq] == 0 {
						return false
					}
				}
				return true
			}, "the lost opening to reach the client after its ready")
			testutil.Eventually(t, 15*time.Second, func() bool { return atReceipt.Load() >= 0 }, "the bot's receipt for the client's ready")
			if n := atReceipt.Load(); n < int64(len(opening)) {
				t.Errorf("the ready's receipt came after %d event packets, want the replay's %d first", n, len(opening))
			}
			// A second ready (the bot allows one a second) makes the bot send the share again:
			// the client must not show it twice.
			var asked time.Time
			testutil.Eventually(t, 15*time.Second, func() bool {
				if late.after.Load() >= int64(2*len(opening)) {
					return true
				}
				if time.Since(asked) > 1100*time.Millisecond {
					asked = time.Now()
					if err := sendReady(ctx, c, tc.role); err != nil {
						t.Fatal(err)
					}
				}
				return false
			}, "a second replay to reach the client")
			// A later live event: the replays were queued before it, so they have all arrived.
			if err := ctrl.Control(ctx, runtime.ControlPause, "examiner-test"); err != nil {
				t.Fatal(err)
			}
			testutil.Eventually(t, 15*time.Second, func() bool {
				count, kinds := got.snapshot()
				for seq, k := range kinds {
					if k == runtime.EventExamState && !opening[seq] && count[seq] > 0 {
						return true
					}
				}
				return false
			}, "the pause to reach the client")
			count, _ := got.snapshot()
			for seq, n := range count {
				if n != 1 {
					t.Errorf("seq %d delivered %d times", seq, n)
				}
			}
		})
	}
}

func sendReady(ctx context.Context, c *livekit.Client, role livekit.Role) error {
	if role == livekit.RoleCandidate {
		data, err := livekit.EncodeCandidateReady()
		if err != nil {
			return err
		}
		return c.SendRaw(ctx, livekit.TopicCandidateInput, data)
	}
	data, err := livekit.EncodeExaminerReady()
	if err != nil {
		return err
	}
	return c.SendRaw(ctx, livekit.TopicExaminerCommands, data)
}
