package sessions

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

func TestSendCommandValidates(t *testing.T) {
	st := openTestStore(t)
	ctx := context.Background()
	sess, err := st.Create(ctx, Meta{ID: "live-1", Exam: testExam()})
	if err != nil {
		t.Fatal(err)
	}
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
func TestCommandsInOrderOnce(t *testing.T) {
	st := openTestStore(t)
	ctx := context.Background()
	if _, err := st.Create(ctx, Meta{ID: "live-2", Exam: testExam()}); err != nil {
		t.Fatal(err)
	}
	other, err := st.Create(ctx, Meta{ID: "live-3", Exam: testExam()})
	if err != nil {
		t.Fatal(err)
	}
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
func TestLive(t *testing.T) {
	st := openTestStore(t)
	ctx := context.Background()
	ended := recordSession(t, st, "ended-1", func(id string) []runtime.Event { return examEvents(t, id, fixtureStart) })
	if ended.EndedAt.IsZero() {
		t.Fatal("fixture session did not end")
	}
	running, err := st.Create(ctx, Meta{ID: "running-1", Exam: testExam()})
	if err != nil {
		t.Fatal(err)
	}
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
