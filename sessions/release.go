package sessions

import (
	"errors"
	"fmt"
)

// Release gives up a session this store created but never opened a journal for (the caller
// failed between Create and Journal): it is left interrupted, so it can be resumed, and its
// lease is released. A store shared by many exams (a worker's) needs this where a store of its
// own would do it on Close. Releasing a session the store does not hold that way does nothing.
func (s *Store) Release(id string) error {
	s.mu.Lock()
	l, ok := s.owned[id]
	delete(s.owned, id)
	s.mu.Unlock()
	if !ok {
		return nil
	}
	return s.abandon(id, l)
}

// abandon leaves a session this store owns without a journal interrupted, so it can be
// resumed, and releases its lease (Release, and Close for every session still held).
func (s *Store) abandon(id string, l lease) error {
	var errs []error
	if _, err := s.db.Exec(`UPDATE sessions SET interrupted = 1 WHERE id = ? AND ended_ns IS NULL`, id); err != nil {
		errs = append(errs, fmt.Errorf("mark %s interrupted: %w", id, err))
	}
	if err := l.release(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
