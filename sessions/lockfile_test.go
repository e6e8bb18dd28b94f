package sessions

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// TestLockFileRemovedWhenSessionEnds: an ended session leaves no lock file; an interrupted one
// keeps it (it is still resumable and its owner is told apart by the lock).
func TestLockFileRemovedWhenSessionEnds(t *testing.T) {
	st := openTestStore(t)
	done := recordExam(t, st, "sess-ended")
	if done.EndedAt.IsZero() {
		t.Fatal("the fixture session did not end")
	}
	if _, err := os.Stat(st.lockPath(done.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file of an ended session: %v, want it removed", err)
	}
	cut := recordSession(t, st, "sess-cut", func(id string) []runtime.Event {
		evs := examEvents(t, id, fixtureStart.Add(time.Hour))
		return evs[:len(evs)/2]
	})
	if !cut.EndedAt.IsZero() {
		t.Fatal("the cut session ended")
	}
	if _, err := os.Stat(st.lockPath(cut.ID)); err != nil {
		t.Errorf("lock file of an interrupted session: %v, want it kept", err)
	}
	// Deleting the interrupted session removes its lock file too (as before).
	if err := st.Delete(t.Context(), cut.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.lockPath(cut.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after delete: %v", err)
	}
}

// TestLockFileOfEndedSessionSwept: a process killed during its shutdown, after the session's
// end was committed and before it removed the lock file, leaves locks/<id>.lock; the next open
// of the store removes it. The lock file of an interrupted session stays.
func TestLockFileOfEndedSessionSwept(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	done := recordExam(t, st, "sess-ended")
	cut := recordSession(t, st, "sess-cut", func(id string) []runtime.Event {
		evs := examEvents(t, id, fixtureStart.Add(time.Hour))
		return evs[:len(evs)/2]
	})
	closeStore(t, st)
	// What the killed process left: the ended session's lock file.
	if err := os.WriteFile(st.lockPath(done.ID), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	st = openStore(t, dir)
	defer closeStore(t, st)
	if _, err := os.Stat(st.lockPath(done.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file of an ended session after the next open: %v, want it removed", err)
	}
	if _, err := os.Stat(st.lockPath(cut.ID)); err != nil {
		t.Errorf("lock file of an interrupted session: %v, want it kept", err)
	}
}
