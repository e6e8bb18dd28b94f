package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// removeLockFile deletes the lock file of a session whose end is committed, so locks/ does not
// keep one file per session forever. It runs while the flock is still held: nobody can be
// waiting on the file, and an ended session is never locked again (Journal refuses it; Delete
// and the interrupted-session sweep recreate the file if they need it).
func (j *Journal) removeLockFile() {
	if _, ok := j.lock.(*ownerLock); !ok {
		return // a PostgreSQL lease leaves no file behind
	}
	if err := os.Remove(j.store.lockPath(j.id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		j.store.log.Warn("remove lock file", "session", j.id, "err", err)
	}
}

// sweepEndedLocks removes the lock files of sessions that ended but whose process died before
// it removed the file (killed during its shutdown, between committing the end and the
// removal): nothing else would, and locks/ would keep them for ever. A file whose session is
// not ended, or not stored yet (Create takes the lock before it inserts the row), or whose
// lock is held, is left alone. SQLite only: PostgreSQL leases leave no file.
func (s *Store) sweepEndedLocks(ctx context.Context) error {
	entries, err := os.ReadDir(filepath.Join(s.dir, locksDir))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("sweep lock files: %w", err)
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok || e.IsDir() {
			continue
		}
		var ended sql.NullInt64
		err := s.db.QueryRowContext(ctx, `SELECT ended_ns FROM sessions WHERE id = ?`, id).Scan(&ended)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && !ended.Valid) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sweep lock files: %w", err)
		}
		l, err := s.acquireLease(ctx, id)
		if errors.Is(err, ErrSessionBusy) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sweep lock files: %w", err)
		}
		// Removed while the flock is held, as removeLockFile does: nobody waits on it.
		if err := os.Remove(s.lockPath(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("remove lock file", "session", id, "err", err)
		}
		if err := l.release(); err != nil {
			return err
		}
		s.log.Info("lock file of an ended session removed", "session", id)
	}
	return nil
}
