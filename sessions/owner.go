package sessions

import (
	"errors"
)

// OwnerAlive reports whether a process holds the session (it is being run now). It takes and
// at once releases the session's owner lock, so it is cheap enough to poll; a session whose
// owner died (even by kill -9) reads as not owned, since the kernel dropped its lock.
func (s *Store) OwnerAlive(id string) (bool, error) {
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
	l, err := acquireLock(s.lockPath(id))
	if errors.Is(err, ErrSessionBusy) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return false, l.release()
}
