package sessions

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// holdWriteLock takes dir's SQLite write lock from a connection of its own, as another process
// in the middle of a long commit would, and gives it back after d.
func holdWriteLock(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = raw.Close() })
	conn, err := raw.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(d, func() {
		_, _ = conn.ExecContext(context.Background(), "COMMIT")
		_ = conn.Close()
	})
}

// TestWriteWaitsItsTurn: every way an exam starts on SQLite (opening a store that migrates or
// recovers, creating the session, taking its journal, the first commit) must wait while
// another process holds the write lock for longer than the busy timeout, and then succeed.
// An exam that fails there exits at its start and can leave a session in created.
func TestWriteWaitsItsTurn(t *testing.T) {
	const busy, held = 20 * time.Millisecond, 400 * time.Millisecond
	ctx := context.Background()
	openBusy := func(t *testing.T, dir string) *Store {
		st := openStore(t, dir, WithBusyTimeout(busy))
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	cases := []struct {
		name string
		run  func(t *testing.T, dir string) error
	}{
		{"create", func(t *testing.T, dir string) error {
			st := openBusy(t, dir)
			holdWriteLock(t, dir, held)
			_, err := st.Create(ctx, Meta{Exam: testExam()})
			return err
		}},
		{"journal", func(t *testing.T, dir string) error {
			st := openBusy(t, dir)
			sess := createSession(t, st, Meta{Exam: testExam()})
			closeStore(t, st) // the session is left interrupted: the journal takes it over
			st2 := openBusy(t, dir)
			holdWriteLock(t, dir, held)
			j, err := st2.Journal(ctx, sess.ID)
			if err == nil {
				err = j.Close()
			}
			return err
		}},
		{"first commit", func(t *testing.T, dir string) error {
			st := openBusy(t, dir)
			sess := createSession(t, st, Meta{Exam: testExam()})
			j := openJournal(t, st, sess.ID)
			ev, err := runtime.NewEvent(sess.ID, 1, time.Now(), &runtime.ExamStatePayload{State: runtime.StateScaffolding, Previous: runtime.StateCreated})
			if err != nil {
				t.Fatal(err)
			}
			holdWriteLock(t, dir, held)
			if err := j.Publish(ev); err != nil {
				return err
			}
			return j.Close()
		}},
		{"open a new data directory", func(t *testing.T, dir string) error {
			// The first process to open it sets WAL mode and migrates; here another one
			// holds the lock of the file it just created.
			holdWriteLock(t, dir, held)
			st2, err := Open(ctx, dir, WithBusyTimeout(busy))
			if err == nil {
				err = st2.Close()
			}
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			start := time.Now()
			if err := tc.run(t, dir); err != nil {
				t.Fatalf("after %v with the write lock held for %v (busy timeout %v): %v", time.Since(start).Round(time.Millisecond), held, busy, err)
			}
		})
	}
}
