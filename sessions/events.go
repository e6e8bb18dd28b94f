package sessions

import (
	"context"
	"fmt"
	"iter"

	"github.com/examtui/examtui/runtime"
)

// eventPage is how many events one query reads. Paging by seq keeps no read transaction open
// while a slow consumer (a replay at 1×) works through a long session.
const eventPage = 2048

// Events streams a session's events with seq ≥ fromSeq in seq order. The iterator yields a
// non-nil error once and stops if reading fails.
func (s *Store) Events(ctx context.Context, id string, fromSeq int64) iter.Seq2[runtime.Event, error] {
	return func(yield func(runtime.Event, error) bool) {
		if err := s.checkOpen(); err != nil {
			yield(runtime.Event{}, err)
			return
		}
		next := max(fromSeq, 1)
		buf := make([]runtime.Event, 0, eventPage)
		for {
			buf = buf[:0]
			rows, err := s.db.QueryContext(ctx, `SELECT seq, type, ts_ns, payload FROM events
				WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?`, id, next, eventPage)
			if err != nil {
				yield(runtime.Event{}, fmt.Errorf("read events of %s: %w", id, err))
				return
			}
			for rows.Next() {
				ev, err := scanEvent(rows, id)
				if err != nil {
					rows.Close()
					yield(runtime.Event{}, fmt.Errorf("read events of %s: %w", id, err))
					return
				}
				buf = append(buf, ev)
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				yield(runtime.Event{}, fmt.Errorf("read events of %s: %w", id, err))
				return
			}
			for _, ev := range buf {
				if !yield(ev, nil) {
					return
				}
			}
			if len(buf) < eventPage {
				return
			}
			next = buf[len(buf)-1].Seq + 1
		}
	}
}

// LoadEvents reads all of a session's events into memory.
func (s *Store) LoadEvents(ctx context.Context, id string) ([]runtime.Event, error) {
	var out []runtime.Event
	for ev, err := range s.Events(ctx, id, 1) {
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}
