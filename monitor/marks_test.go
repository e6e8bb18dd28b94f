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
	ctx, st, sess := finishedExam(t)
	board, updates := follow(t, ctx, st)
	awaiting := func(want int) {
		t.Helper()
		waitBoard(t, board, updates, func() bool { n, known := board.AwaitingMarks(); return known && n == want }, "the board to count %d exams awaiting marks", want)
	}
	awaiting(1)
	if err := st.LockMarks(ctx, sessions.MarkLock{SessionID: sess.ID, Marker: "carol", At: time.Now(), Digest: "d", Manifest: ""}); err != nil {
		t.Fatal(err)
	}
	awaiting(0)
}

// TestFollowFailedPassbacks: the control room learns how many scores the LMS gradebook did not
// take from the store (marks publish records them), and sees the count fall when a later run
// gets the score through.
func TestFollowFailedPassbacks(t *testing.T) {
	ctx, st, sess := finishedExam(t)
	board, updates := follow(t, ctx, st)
	failed := func(want int) {
		t.Helper()
		waitBoard(t, board, updates, func() bool { n, known := board.FailedPassbacks(); return known && n == want }, "the board to count %d failed passbacks", want)
	}
	failed(0)
	sc := sessions.LTIScore{SessionID: sess.ID, LineItem: "https://lms.example/lineitems/1", CandidateID: "lti:x:7", Grading: "Pending",
		Status: sessions.LTIScoreFailed, Attempts: 1, LastError: "400 Bad Request", Updated: time.Now(), NextAttempt: time.Now().Add(time.Minute)}
	if err := st.RecordLTIScore(ctx, sc); err != nil {
		t.Fatal(err)
	}
	failed(1)
	sc.Status, sc.LastError = sessions.LTIScorePosted, ""
	if err := st.RecordLTIScore(ctx, sc); err != nil {
		t.Fatal(err)
	}
	failed(0)
}

// finishedExam is a store holding one finished rehearsal, which waits to be marked.
func finishedExam(t *testing.T) (context.Context, *sessions.Store, *sessions.Session) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := sessions.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
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
	return ctx, st, sess
}

// follow starts Follow on st for a new board, which knows no count yet.
func follow(t *testing.T, ctx context.Context, st *sessions.Store) (*Board, chan Update) {
	t.Helper()
	board, err := NewBoard(Thresholds{})
	if err != nil {
		t.Fatal(err)
	}
	if _, known := board.AwaitingMarks(); known {
		t.Fatal("a new board knows a count of exams awaiting marks")
	}
	if _, known := board.FailedPassbacks(); known {
		t.Fatal("a new board knows a count of failed passbacks")
	}
	updates := make(chan Update)
	go Follow(ctx, st, FollowOptions{Interval: 10 * time.Millisecond, OwnersEvery: 20 * time.Millisecond, Since: time.Now().Add(-time.Hour)}, updates)
	return board, updates
}

// waitBoard applies updates to board until cond holds.
func waitBoard(t *testing.T, board *Board, updates chan Update, cond func() bool, what ...any) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, func() bool {
		select {
		case u := <-updates:
			board.ApplyUpdate(u)
		case <-time.After(50 * time.Millisecond):
		}
		return cond()
	}, what...)
}
