package sessions

import (
	"context"
	"fmt"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// ResumeData returns what the runtime needs to resume a session (runtime.WithResume): the
// compiled exam the session started with and every stored event, in seq order. Open the
// session's Journal afterwards to continue at the next seq.
func (s *Store) ResumeData(ctx context.Context, id string) (*spec.Exam, []runtime.Event, error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if !sess.EndedAt.IsZero() {
		return nil, nil, fmt.Errorf("resume %s: %w", id, ErrSessionEnded)
	}
	exam, err := sess.Exam()
	if err != nil {
		return nil, nil, err
	}
	events, err := s.LoadEvents(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	for i, ev := range events {
		if ev.Seq != int64(i+1) {
			return nil, nil, fmt.Errorf("resume %s: stored seq has a gap at %d (found %d)", id, i+1, ev.Seq)
		}
	}
	return exam, events, nil
}
