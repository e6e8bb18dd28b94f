package sessions

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// recordRehearsal records the example rehearsal, played by the real controller and offline
// examiner, as a finished session of st.
func recordRehearsal(t *testing.T, st *Store, candidate string) string {
	t.Helper()
	script, exam := runtimetest.Rehearsal(t)
	sess := createSession(t, st, Meta{Exam: exam, Candidate: candidate, Examiner: "offline", Input: runtime.SourceTyped, StartedAt: headless.DefaultStart})
	j := openJournal(t, st, sess.ID)
	if _, err := headless.Run(context.Background(), script, headless.Options{Sink: j, SessionID: sess.ID, Start: headless.DefaultStart}); err != nil {
		t.Fatal(err)
	}
	closeJournal(t, j)
	return sess.ID
}

// TestMarksStore checks marks, final marks and locks on both engines: a marker's mark is
// replaced by their next, marks read back in order, a lock refuses every later write, and the
// count of finished exams awaiting marks follows the locks.
func TestMarksStore(t *testing.T) { forEachEngine(t, testMarksStore) }

func testMarksStore(t *testing.T, eng testEngine) {
	ctx := context.Background()
	st := eng.open(t)
	id := recordRehearsal(t, st, "Priya")
	other := recordRehearsal(t, st, "Tom")
	at := time.Date(2026, 1, 6, 10, 0, 0, 123456789, time.UTC)
	mk := func(crit, marker, level string, marks int) Mark {
		return Mark{SessionID: id, Criterion: crit, Marker: marker, Level: level, Marks: marks, Justification: "because", At: at}
	}
	if n, err := st.AwaitingMarks(ctx); err != nil || n != 2 {
		t.Fatalf("awaiting marks %d, %v; want 2", n, err)
	}
	for _, m := range []Mark{mk("options", "bob", "analysis", 2), mk("options", "alice", "description", 1), mk("clientele", "alice", "analysis", 2),
		mk("options", "alice", "evaluation", 3)} {
		if err := st.SetMark(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Marks(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := []Mark{mk("clientele", "alice", "analysis", 2), mk("options", "alice", "evaluation", 3), mk("options", "bob", "analysis", 2)}
	if len(got) != len(want) {
		t.Fatalf("marks %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mark %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if err := st.SetFinalMark(ctx, mk("options", "carol", "analysis", 2)); err != nil {
		t.Fatal(err)
	}
	finals, err := st.FinalMarks(ctx, id)
	if err != nil || len(finals) != 1 || finals[0].Marker != "carol" {
		t.Fatalf("final marks %+v, %v", finals, err)
	}
	exam, err := st.ExamMarks(ctx, "hospitality-oral-b2")
	if err != nil || len(exam) != 3 {
		t.Fatalf("exam marks %+v, %v", exam, err)
	}
	if _, locked, err := st.MarkLock(ctx, id); err != nil || locked {
		t.Fatalf("locked before the lock: %v, %v", locked, err)
	}
	lock := MarkLock{SessionID: id, Marker: "carol", At: at, Digest: "abc", Manifest: "event 1 exam_state x\n"}
	if err := st.LockMarks(ctx, lock); err != nil {
		t.Fatal(err)
	}
	if l, locked, err := st.MarkLock(ctx, id); err != nil || !locked || l != lock {
		t.Fatalf("lock %+v %v %v, want %+v", l, locked, err, lock)
	}
	for name, err := range map[string]error{
		"mark":       st.SetMark(ctx, mk("options", "bob", "evaluation", 3)),
		"final mark": st.SetFinalMark(ctx, mk("options", "carol", "evaluation", 3)),
		"lock":       st.LockMarks(ctx, lock),
	} {
		if !errors.Is(err, ErrMarksLocked) {
			t.Errorf("%s after the lock: %v, want ErrMarksLocked", name, err)
		}
	}
	if n, err := st.AwaitingMarks(ctx); err != nil || n != 1 {
		t.Errorf("awaiting marks after one lock: %d, %v; want 1", n, err)
	}
	if locked, err := st.LockedSessions(ctx, "hospitality-oral-b2"); err != nil || !locked[id] || locked[other] {
		t.Errorf("locked sessions %v, %v", locked, err)
	}
	for name, m := range map[string]Mark{
		"no session":     {Criterion: "c", Marker: "m", Level: "l", At: at},
		"no marker":      {SessionID: id, Criterion: "c", Level: "l", At: at},
		"negative marks": {SessionID: other, Criterion: "c", Marker: "m", Level: "l", Marks: -1, At: at},
		"no time":        {SessionID: other, Criterion: "c", Marker: "m", Level: "l"},
	} {
		if err := st.SetMark(ctx, m); !errors.Is(err, ErrInvalidMark) {
			t.Errorf("%s: %v, want ErrInvalidMark", name, err)
		}
	}
	if err := st.SetMark(ctx, Mark{SessionID: "nope", Criterion: "c", Marker: "m", Level: "l", At: at}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown session: %v, want ErrNotFound", err)
	}
}
