package sessions

import (
	"context"
	"errors"
	"fmt"
)

// OwnerAlive reports whether a process holds the session (it is being run now), on any
// machine sharing the store. SQLite: it takes and at once releases the session's owner lock
// in the data directory. PostgreSQL: it asks the server whether a connection holds the
// session's advisory lock (pg_locks), without opening a connection of its own. Either is cheap
// enough to poll; a session whose owner died (even by kill -9, or with its machine) reads as
// not owned once the kernel or the server has dropped its lock.
func (s *Store) OwnerAlive(ctx context.Context, id string) (bool, error) {
	if err := s.checkOpen(); err != nil {
		return false, err
	}
	s.mu.Lock()
	_, journal := s.journals[id]
	_, owned := s.owned[id]
	s.mu.Unlock()
	if journal || owned {
		return true, nil
	}
	if s.engine == EnginePostgres {
		var held bool
		if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM (SELECT `+leaseKeySQL+` AS k) lk
			JOIN pg_locks l ON `+leaseHeldSQL+`)`, id).Scan(&held); err != nil {
			return false, fmt.Errorf("owner of %s: %w", id, err)
		}
		return held, nil
	}
	l, err := acquireLock(s.lockPath(id))
	if errors.Is(err, ErrSessionBusy) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return false, l.release()
}

// leaseHeldSQL matches the pg_locks row of a granted session lease whose key is lk.k: the
// server shows a bigint advisory key as its high half in classid and its low half in objid,
// with objsubid 1.
const leaseHeldSQL = `l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
	AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
	AND l.classid::bigint = ((lk.k >> 32) & 4294967295) AND l.objid::bigint = (lk.k & 4294967295)`

// ownerlessRunning returns the running sessions (not ended, not interrupted) that no process
// owns, as far as a cheap look tells: the caller still takes each one's lease before acting,
// since an owner may start between the look and the lease. On SQLite every running session is
// a candidate (taking a lock file is as cheap as looking at it).
func (s *Store) ownerlessRunning(ctx context.Context) ([]string, error) {
	q := `SELECT id FROM sessions WHERE ended_ns IS NULL AND interrupted = 0`
	if s.engine == EnginePostgres {
		// One query for all, instead of a lease connection per running session.
		q = `SELECT s.id FROM sessions s WHERE s.ended_ns IS NULL AND s.interrupted = 0
			AND NOT EXISTS (SELECT 1 FROM (SELECT hashtextextended('examtui.session:' || s.id, 0) AS k) lk
				JOIN pg_locks l ON ` + leaseHeldSQL + `)`
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("find running sessions: %w", err)
	}
	defer rows.Close()
	ids, err := scanIDs(rows)
	if err != nil {
		return nil, fmt.Errorf("find running sessions: %w", err)
	}
	return ids, nil
}
