package sessions

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
)

func TestSendCommandValidates(t *testing.T) { forEachEngine(t, testSendCommandValidates) }

func testSendCommandValidates(t *testing.T, eng testEngine) {
	st := eng.open(t)
	ctx := context.Background()
	sess := createSession(t, st, Meta{ID: "live-1", Exam: testExam()})
	tests := []struct {
		name string
		cmd  Command
		want error
	}{
		{"pause", Command{Kind: CommandControl, Action: "pause", Sender: "m"}, nil},
		{"queued instruction", Command{Kind: CommandAdmin, Action: "queued", Text: "Ask about costs", Sender: "m"}, nil},
		{"unknown control", Command{Kind: CommandControl, Action: "explode", Sender: "m"}, ErrInvalidCommand},
		{"control with text", Command{Kind: CommandControl, Action: "pause", Text: "x", Sender: "m"}, ErrInvalidCommand},
		{"empty instruction", Command{Kind: CommandAdmin, Action: "immediate", Text: "  ", Sender: "m"}, ErrInvalidCommand},
		{"bad mode", Command{Kind: CommandAdmin, Action: "later", Text: "x", Sender: "m"}, ErrInvalidCommand},
		{"line to say", Command{Kind: CommandAdmin, Action: "say", Text: "We have five minutes left.", Sender: "m"}, nil},
		{"control is no instruction mode", Command{Kind: CommandAdmin, Action: "control", Text: "x", Sender: "m"}, ErrInvalidCommand},
		{"no sender", Command{Kind: CommandControl, Action: "pause"}, ErrInvalidCommand},
		{"bad kind", Command{Kind: "speak", Action: "pause", Sender: "m"}, ErrInvalidCommand},
		{"no session", Command{SessionID: "nope-1", Kind: CommandControl, Action: "pause", Sender: "m"}, ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cmd.SessionID == "" {
				tc.cmd.SessionID = sess.ID
			}
			_, err := st.SendCommand(ctx, tc.cmd)
			if !errors.Is(err, tc.want) {
				t.Fatalf("SendCommand: %v, want %v", err, tc.want)
			}
		})
	}
}

// TestCommandsInOrderOnce: concurrent senders get distinct seqs, the owner takes every command
// once, in seq order, and an ended session takes no more.
func TestCommandsInOrderOnce(t *testing.T) { forEachEngine(t, testCommandsInOrderOnce) }

func testCommandsInOrderOnce(t *testing.T, eng testEngine) {
	st := eng.open(t)
	ctx := context.Background()
	createSession(t, st, Meta{ID: "live-2", Exam: testExam()})
	other := createSession(t, st, Meta{ID: "live-3", Exam: testExam()})
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			action := []string{"pause", "resume"}[i%2]
			if _, err := st.SendCommand(ctx, Command{SessionID: "live-2", Kind: CommandControl, Action: action, Sender: "monitor:a"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var got []Command
	for len(got) < n {
		cmds, err := st.TakeCommands(ctx, "live-2")
		if err != nil {
			t.Fatal(err)
		}
		if len(cmds) == 0 {
			break
		}
		got = append(got, cmds...)
	}
	if len(got) != n {
		t.Fatalf("took %d commands, want %d", len(got), n)
	}
	for i, c := range got {
		if c.Seq != int64(i+1) || c.Sender != "monitor:a" || c.CreatedAt.IsZero() {
			t.Fatalf("command %d: %+v", i, c)
		}
	}
	if again, err := st.TakeCommands(ctx, "live-2"); err != nil || len(again) != 0 {
		t.Fatalf("taken twice: %v %v", again, err)
	}
	if cmds, err := st.TakeCommands(ctx, other.ID); err != nil || len(cmds) != 0 {
		t.Fatalf("another session's queue: %v %v", cmds, err)
	}
	if _, err := st.db.ExecContext(ctx, `UPDATE sessions SET ended_ns = ? WHERE id = ?`, time.Now().UnixNano(), "live-2"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SendCommand(ctx, Command{SessionID: "live-2", Kind: CommandControl, Action: "pause", Sender: "m"}); !errors.Is(err, ErrSessionEnded) {
		t.Fatalf("command to an ended session: %v", err)
	}
}

// TestLive lists running sessions and those active since the cut, not older ended ones.
func TestLive(t *testing.T) { forEachEngine(t, testLive) }

func testLive(t *testing.T, eng testEngine) {
	st := eng.open(t)
	ctx := context.Background()
	ended := recordExam(t, st, "ended-1")
	if ended.EndedAt.IsZero() {
		t.Fatal("fixture session did not end")
	}
	running := createSession(t, st, Meta{ID: "running-1", Exam: testExam()})
	ids := func(since time.Time) []string {
		list, err := st.Live(ctx, since)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range list {
			out = append(out, s.ID)
		}
		return out
	}
	if got := ids(ended.EndedAt.Add(time.Hour)); !slices.Equal(got, []string{running.ID}) {
		t.Errorf("after the ended session: %v", got)
	}
	if got := ids(fixtureStart.Add(-time.Hour)); !slices.Equal(got, []string{ended.ID, running.ID}) {
		t.Errorf("since before both: %v", got)
	}
	if err := st.CheckOwners(ctx); err != nil {
		t.Fatal(err)
	}
	if s, _ := st.Get(ctx, running.ID); s.Interrupted {
		t.Error("CheckOwners marked a session this process owns as interrupted")
	}
}

// TestTakeCommandsConcurrentReaders: readers on separate store handles (two owners of one
// session racing, say a resumed one and the one it replaced) poll one queue at once while a
// sender fills it; every command is taken exactly once.
func TestTakeCommandsConcurrentReaders(t *testing.T) {
	forEachEngine(t, testTakeCommandsConcurrentReaders)
}

func testTakeCommandsConcurrentReaders(t *testing.T, eng testEngine) {
	st := eng.open(t)
	ctx := context.Background()
	createSession(t, st, Meta{ID: "live-4", Exam: testExam()})
	const n, readers = 40, 4
	var mu sync.Mutex
	taken := map[int64]int{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range readers {
		h := openStore(t, st.openTarget, WithRecovery(false))
		t.Cleanup(func() { _ = h.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				// Only a call that began after the last command was sent may end the reader:
				// one that began before may not see it (PostgreSQL's UPDATE reads the rows
				// committed when it starts) and still return after done is closed.
				var last bool
				select {
				case <-done:
					last = true
				default:
				}
				cmds, err := h.TakeCommands(ctx, "live-4")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, c := range cmds {
					taken[c.Seq]++
				}
				mu.Unlock()
				if last && len(cmds) == 0 {
					return
				}
			}
		}()
	}
	for range n {
		if _, err := st.SendCommand(ctx, Command{SessionID: "live-4", Kind: CommandControl, Action: "pause", Sender: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if len(taken) != n {
		t.Fatalf("took %d distinct commands, want %d", len(taken), n)
	}
	for seq, k := range taken {
		if k != 1 {
			t.Errorf("command %d taken %d times", seq, k)
		}
	}
}

// TestCheckOwnersAcrossHandles: a control room's handle marks interrupted the session whose
// owner (another handle: another process or machine) went away, and leaves alone the one whose
// owner still runs.
func TestCheckOwnersAcrossHandles(t *testing.T) { forEachEngine(t, testCheckOwnersAcrossHandles) }

func testCheckOwnersAcrossHandles(t *testing.T, eng testEngine) {
	ctx := context.Background()
	alive := eng.open(t)
	target := alive.openTarget
	running := createSession(t, alive, Meta{ID: "alive-1", Exam: testExam()})
	gone := openStore(t, target)
	orphan := createSession(t, gone, Meta{ID: "gone-1", Exam: testExam()})
	monitor := openStore(t, target, WithRecovery(false))
	defer monitor.Close()
	owners := func(when string, wantRunning, wantOrphan bool) {
		t.Helper()
		for id, want := range map[string]bool{running.ID: wantRunning, orphan.ID: wantOrphan} {
			if got, err := monitor.OwnerAlive(ctx, id); err != nil || got != want {
				t.Errorf("%s: OwnerAlive(%s) = %v, %v; want %v", when, id, got, err, want)
			}
		}
	}
	owners("both running", true, true)
	if err := monitor.CheckOwners(ctx); err != nil {
		t.Fatal(err)
	}
	if s, _ := monitor.Get(ctx, orphan.ID); s.Interrupted {
		t.Fatal("a session whose owner runs was marked interrupted")
	}
	closeStore(t, gone) // its owner goes away without ending it
	// The server may take a moment to drop the lock.
	testutil.Eventually(t, 10*time.Second, func() bool {
		if err := monitor.CheckOwners(ctx); err != nil {
			t.Fatal(err)
		}
		s := getSession(t, monitor, orphan.ID)
		return s.Interrupted
	}, "the session of the owner that went away to be marked interrupted")
	owners("one gone", true, false)
	if s, _ := monitor.Get(ctx, running.ID); s.Interrupted {
		t.Error("the session whose owner runs was marked interrupted")
	}
}
