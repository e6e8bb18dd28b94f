package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"

	"github.com/examtui/examtui/runtime"
)

// eventPage is how many events one query reads. Paging by seq keeps no read transaction open
// while a slow consumer (a replay at 1×) works through a long session.
const eventPage = 2048

// firstEventPage is the size of the first page Events reads.
const firstEventPage = 128

// Events streams a session's events with seq ≥ fromSeq in seq order. The iterator yields a
// non-nil error once and stops if reading fails.
func (s *Store) Events(ctx context.Context, id string, fromSeq int64) iter.Seq2[runtime.Event, error] {
	return func(yield func(runtime.Event, error) bool) {
		if err := s.checkOpen(); err != nil {
			yield(runtime.Event{}, err)
			return
		}
		next := max(fromSeq, 1)
		// The first page is small so a replay starts at once; later pages are full size.
		page := firstEventPage
		buf := make([]runtime.Event, 0, eventPage)
		for {
			buf = buf[:0]
			rows, closeRows, err := s.query(ctx, `SELECT seq, type, ts_ns, payload FROM events
				WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?`, id, next, page)
			if err != nil {
				yield(runtime.Event{}, fmt.Errorf("read events of %s: %w", id, err))
				return
			}
			for rows.Next() {
				ev, err := scanEvent(rows, id)
				if err != nil {
					closeRows()
					yield(runtime.Event{}, fmt.Errorf("read events of %s: %w", id, err))
					return
				}
				buf = append(buf, ev)
			}
			err = rows.Err()
			closeRows()
			if err != nil {
				yield(runtime.Event{}, fmt.Errorf("read events of %s: %w", id, err))
				return
			}
			for _, ev := range buf {
				if !yield(ev, nil) {
					return
				}
			}
			if len(buf) < page {
				return
			}
			next = buf[len(buf)-1].Seq + 1
			page = eventPage
		}
	}
}

// Load reads session id and all of its events (LoadEvents): what a summary, an export or a
// summary recovery works from.
func (s *Store) Load(ctx context.Context, id string) (*Session, []runtime.Event, error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	events, err := s.LoadEvents(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return sess, events, nil
}

// LoadEvents reads all of a session's events into memory, in one query: it has no slow
// consumer to wait for, and one round trip per page would dominate on a remote database.
func (s *Store) LoadEvents(ctx context.Context, id string) ([]runtime.Event, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT event_count FROM sessions WHERE id = ?`, id).Scan(&n); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read events of %s: %w", id, err)
	}
	rows, closeRows, err := s.query(ctx, `SELECT seq, type, ts_ns, payload FROM events WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("read events of %s: %w", id, err)
	}
	defer closeRows()
	out := make([]runtime.Event, 0, n)
	for rows.Next() {
		ev, err := scanEvent(rows, id)
		if err != nil {
			return nil, fmt.Errorf("read events of %s: %w", id, err)
		}
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read events of %s: %w", id, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
