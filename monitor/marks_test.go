package monitor

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
)

// TestFollowAwaitingMarks: the control room learns how many finished exams wait to be marked
// from the store, and sees the count fall when another process locks one's marking.
func TestFollowAwaitingMarks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := sessions.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	script, exam := runtimetest.Rehearsal(t)
	sess, err := st.Create(ctx, sessions.Meta{Exam: exam, Candidate: "Priya", Input: runtime.SourceTyped, StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	j, err := st.Journal(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := headless.Run(ctx, script, headless.Options{Sink: j, SessionID: sess.ID, Start: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	board, err := NewBoard(Thresholds{})
	if err != nil {
		t.Fatal(err)
	}
	if _, known := board.AwaitingMarks(); known {
		t.Fatal("a new board knows a count")
	}
	updates := make(chan Update)
	go Follow(ctx, st, FollowOptions{Interval: 10 * time.Millisecond, OwnersEvery: 20 * time.Millisecond, Since: time.Now().Add(-time.Hour)}, updates)
	awaiting := func(want int) {
		t.Helper()
		testutil.Eventually(t, 5*time.Second, func() bool {
			select {
			case u := <-updates:
				board.ApplyUpdate(u)
			case <-time.After(50 * time.Millisecond):
			}
			n, known := board.AwaitingMarks()
			return known && n == want
		}, "the board to count %d exams awaiting marks", want)
	}
	awaiting(1)
	if err := st.LockMarks(ctx, sessions.MarkLock{SessionID: sess.ID, Marker: "carol", At: time.Now(), Digest: "d", Manifest: ""}); err != nil {
		t.Fatal(err)
	}
	awaiting(0)
}
