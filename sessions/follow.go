package sessions

import (
	"context"
	"fmt"
	"time"
)

// The queries a control room (examtui monitor) follows the store with. They are plain SQL over
// the sessions table's aggregate columns, so every engine behind Store answers them the same
// way; a follower reads events itself with Events(ctx, id, lastSeq+1), never re-reading what it
// has seen.

// Live returns the sessions a control room shows, oldest first: every session that is neither
// ended nor interrupted, plus every session that started, had an event or ended at or after
// since (an exam that finished or was interrupted today). Exams and events are not loaded.
func (s *Store) Live(ctx context.Context, since time.Time) ([]*Session, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	ns := since.UnixNano()
	rows, err := s.db.QueryContext(ctx, `SELECT `+listColumns+` FROM sessions
		WHERE (ended_ns IS NULL AND interrupted = 0) OR started_ns >= ? OR last_event_ns >= ? OR ended_ns >= ?
		ORDER BY started_ns, id`, ns, ns, ns)
	if err != nil {
		return nil, fmt.Errorf("list live sessions: %w", err)
	}
	defer rows.Close()
	out, err := scanSessions(rows)
	if err != nil {
		return nil, fmt.Errorf("list live sessions: %w", err)
	}
	return out, nil
}

// CheckOwners marks every running session whose owning process has died as interrupted, as
// Open does once. A long-running reader (the control room) calls it now and then, so an exam
// whose process crashed shows as interrupted without anyone reopening the store.
func (s *Store) CheckOwners(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return s.recoverInterrupted(ctx)
}
