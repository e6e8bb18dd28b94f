package sessions

import (
	"context"
	"errors"
	"fmt"

	"github.com/examtui/examtui/runtime"
)

// RecoveredReasonPrefix starts the reason of an exam_completed that recovery wrote for a
// session whose owner died between the terminal exam_state and exam_completed.
const RecoveredReasonPrefix = "recovered after the examtui process stopped"

// recoverSummaries closes the crash window between the terminal exam_state (which ends a
// session) and exam_completed (its summary): a session that ended without its summary and
// whose owner is gone gets the exam_completed the runtime would have written, rebuilt from its
// stored events, so every ended session has its summary.
func (s *Store) recoverSummaries(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM sessions WHERE ended_ns IS NOT NULL AND summarized = 0`)
	if err != nil {
		return fmt.Errorf("find sessions without summary: %w", err)
	}
	ids, err := scanIDs(rows)
	rows.Close()
	if err != nil {
		return fmt.Errorf("find sessions without summary: %w", err)
	}
	for _, id := range ids {
		l, err := s.acquireLease(ctx, id)
		if errors.Is(err, ErrSessionBusy) {
			continue // its owner is alive and about to write the summary itself
		}
		if err != nil {
			return err
		}
		err = s.completeSummary(ctx, id)
		if rerr := l.release(); err == nil {
			err = rerr
		}
		if err != nil {
			return fmt.Errorf("recover summary of %s: %w", id, err)
		}
		s.log.Info("session summary recovered: its process stopped before writing it", "session", id)
	}
	return nil
}

// completeSummary appends the missing exam_completed to an ended session. The caller holds
// the session's lease.
func (s *Store) completeSummary(ctx context.Context, id string) error {
	sess, events, err := s.Load(ctx, id)
	if err != nil {
		return err
	}
	exam, err := sess.Exam()
	if err != nil {
		return err
	}
	agg := newAggregate(exam, runtime.StateCreated)
	var terminal *runtime.Event
	for i := range events {
		agg.apply(events[i])
		if events[i].Event == runtime.EventExamState && terminal == nil {
			if p, err := events[i].Decode(); err == nil && p.(*runtime.ExamStatePayload).State.Terminal() {
				terminal = &events[i]
			}
		}
	}
	if !agg.completed {
		if terminal == nil {
			return fmt.Errorf("ended without a terminal exam_state")
		}
		ev, err := recoveredCompletion(sess, events, *terminal)
		if err != nil {
			return err
		}
		agg.apply(ev)
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.ExecContext(ctx, insertEventSQL, id, ev.Seq, string(ev.Event), ev.Timestamp.UnixNano(), []byte(ev.Payload)); err != nil {
			return fmt.Errorf("insert exam_completed: %w", err)
		}
		if _, err := tx.ExecContext(ctx, updateAggregateSQL, aggregateArgs(agg, id)...); err != nil {
			return err
		}
		return tx.Commit()
	}
	// The event is there and only the flag is behind: set it.
	_, err = s.db.ExecContext(ctx, updateAggregateSQL, aggregateArgs(agg, id)...)
	return err
}

// recoveredCompletion builds the exam_completed the runtime writes when an exam ends, from
// what the session stored: the terminal state and its reason, every node entry in order,
// accepted evidence by signal type and the last coverage of every node with targets.
func recoveredCompletion(sess *Session, events []runtime.Event, terminal runtime.Event) (runtime.Event, error) {
	sum, err := Summarize(sess, events)
	if err != nil {
		return runtime.Event{}, err
	}
	tp, _ := terminal.Decode()
	st := tp.(*runtime.ExamStatePayload)
	p := &runtime.ExamCompletedPayload{
		State:        st.State,
		Reason:       RecoveredReasonPrefix,
		NodesVisited: []string{},
		Evidence:     map[string]int{},
		Coverage:     map[string]float64{},
	}
	if st.Reason != "" {
		p.Reason += ": " + st.Reason
	}
	if len(events) > 0 {
		p.DurationMs = terminal.Timestamp.Sub(events[0].Timestamp).Milliseconds()
	}
	exam, err := sess.Exam()
	if err != nil {
		return runtime.Event{}, err
	}
	for _, v := range sum.Nodes { // one entry per stay, as the controller lists them
		p.NodesVisited = append(p.NodesVisited, v.NodeID)
		if n := exam.Node(v.NodeID); n != nil && len(n.Controller.EvidenceSignals) > 0 {
			p.Coverage[v.NodeID] = v.Coverage
		}
	}
	for _, c := range sum.SignalCounts() {
		p.Evidence[c.SignalType] = c.Count
	}
	last := events[len(events)-1]
	return runtime.NewEvent(sess.ID, last.Seq+1, terminal.Timestamp, p)
}
