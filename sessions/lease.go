package sessions

import "context"

// lease is ownership of one live session. Exactly one process holds a session's lease while it
// runs; when the holder dies, however it dies, the lease is released by the operating system
// (SQLite: an flock in the data directory) or by the database server (PostgreSQL: a
// session-level advisory lock held by the owner's own connection), and the next Open marks the
// session interrupted so it can be resumed.
type lease interface {
	release() error
}

// takeLease takes session id's lease for a change that must not race its owner: refused
// (ErrSessionBusy) while a journal of this process writes it; the lease this process already
// holds (a session it created) is handed over; else the lease is acquired.
func (s *Store) takeLease(ctx context.Context, id string) (lease, error) {
	s.mu.Lock()
	if _, ok := s.journals[id]; ok {
		s.mu.Unlock()
		return nil, ErrSessionBusy
	}
	l := s.owned[id]
	delete(s.owned, id)
	s.mu.Unlock()
	if l != nil {
		return l, nil
	}
	return s.acquireLease(ctx, id)
}

// acquireLease takes the lease of session id, or returns ErrSessionBusy when a running
// process holds it.
func (s *Store) acquireLease(ctx context.Context, id string) (lease, error) {
	if s.engine == EnginePostgres {
		return s.acquirePGLease(ctx, id)
	}
	return acquireLock(s.lockPath(id))
}
