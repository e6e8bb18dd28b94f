package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/examtui/examtui/runtime"
)

// CopyResult says what CopySessions did with each session of the source.
type CopyResult struct {
	Copied  []string // written to the destination (new, or replacing an older copy)
	Present []string // already in the destination with the same events: left alone
	Running []string // live in the source: not copied (copy again once they stop)
	// Tables counts the rows written to every other table (marks, final marks, locks, the
	// rosters, the access log…; copyTables), by table.
	Tables map[string]int64
}

// CopySessions copies every session of from into to: metadata, compiled exam and events,
// byte for byte (type, timestamp and payload as stored), then the rows of every other table
// (copyTables: marks, final marks and locks, rosters, the access log, and whatever table the
// schema adds) that the destination does not hold yet. It is idempotent: a session already
// in to with as many events is left alone; one with fewer (it continued in from after an
// earlier copy) is replaced. Each session is copied in one transaction, so an interrupted
// copy leaves whole sessions only. Sessions running in from are skipped.
func CopySessions(ctx context.Context, from, to *Store) (CopyResult, error) {
	var res CopyResult
	if err := from.checkOpen(); err != nil {
		return res, err
	}
	if err := to.checkOpen(); err != nil {
		return res, err
	}
	list, err := from.List(ctx)
	if err != nil {
		return res, err
	}
	for _, s := range list {
		if s.Status() == StatusRunning {
			res.Running = append(res.Running, s.ID)
			continue
		}
		existing, err := to.Get(ctx, s.ID)
		switch {
		case err == nil && existing.EventCount == s.EventCount:
			res.Present = append(res.Present, s.ID)
			continue
		case err == nil && existing.EventCount > s.EventCount:
			return res, fmt.Errorf("copy %s: the destination holds more events (%d) than the source (%d)", s.ID, existing.EventCount, s.EventCount)
		case err != nil && !errors.Is(err, ErrNotFound):
			return res, err
		}
		if err := copySession(ctx, from, to, s.ID); err != nil {
			return res, fmt.Errorf("copy %s: %w", s.ID, err)
		}
		res.Copied = append(res.Copied, s.ID)
	}
	have := map[string]bool{}
	for _, id := range append(slices.Clone(res.Copied), res.Present...) {
		have[id] = true
	}
	res.Tables, err = copyTables(ctx, from, to, have)
	return res, err
}

// rawSession is a sessions row as stored, for copying between stores.
type rawSession struct {
	id, examID, title, candidate, examiner, input, state, examSum, specPath, recordings, candidateID string
	startedNs                                                                                        int64
	endedNs, lastNs                                                                                  sql.NullInt64
	interrupted, ownerPID, evidence, summarized                                                      int
	usage                                                                                            string
	noticeAck                                                                                        sql.NullInt64
	events                                                                                           int64
	coverage                                                                                         float64
	examJSON                                                                                         string
}

const rawColumns = `id, exam_id, title, candidate, examiner, input, started_ns, ended_ns, state, interrupted,
	exam_sha256, spec_path, recordings, owner_pid, event_count, last_event_ns, evidence_count, coverage, summarized, usage, notice_ack_ns, candidate_id`

// rawPlaceholders has one placeholder per column of rawColumns.
var rawPlaceholders = strings.TrimSuffix(strings.Repeat("?, ", strings.Count(rawColumns, ",")+1), ", ")

func (r *rawSession) args() []any {
	return []any{r.id, r.examID, r.title, r.candidate, r.examiner, r.input, r.startedNs, r.endedNs, r.state, r.interrupted,
		r.examSum, r.specPath, r.recordings, r.ownerPID, r.events, r.lastNs, r.evidence, r.coverage, r.summarized, r.usage, r.noticeAck, r.candidateID}
}

func copySession(ctx context.Context, from, to *Store, id string) error {
	var r rawSession
	err := from.db.QueryRowContext(ctx, `SELECT `+rawColumns+`, exams.exam_json FROM sessions
		JOIN exams ON exams.sha256 = sessions.exam_sha256 WHERE id = ?`, id).Scan(
		&r.id, &r.examID, &r.title, &r.candidate, &r.examiner, &r.input, &r.startedNs, &r.endedNs, &r.state, &r.interrupted,
		&r.examSum, &r.specPath, &r.recordings, &r.ownerPID, &r.events, &r.lastNs, &r.evidence, &r.coverage, &r.summarized, &r.usage, &r.noticeAck, &r.candidateID, &r.examJSON)
	if err != nil {
		return fmt.Errorf("read session: %w", err)
	}
	events, err := from.LoadEvents(ctx, id)
	if err != nil {
		return err
	}
	// Nobody may be writing the destination's copy while it is replaced.
	l, err := to.acquireLease(ctx, id)
	if err != nil {
		return err
	}
	defer func() { _ = l.release() }()
	if to.engine == EnginePostgres {
		return copyIntoPG(ctx, to, &r, events)
	}
	tx, err := to.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := writeSessionRow(ctx, tx, &r); err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, insertEventSQL)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, ev := range events {
		if _, err := ins.ExecContext(ctx, id, ev.Seq, string(ev.Event), ev.Timestamp.UnixNano(), []byte(ev.Payload)); err != nil {
			return fmt.Errorf("insert seq %d: %w", ev.Seq, err)
		}
	}
	return tx.Commit()
}

// writeSessionRow replaces the session's row and events with r (events are written after).
func writeSessionRow(ctx context.Context, x execer, r *rawSession) error {
	if _, err := x.ExecContext(ctx, `INSERT INTO exams (sha256, exam_json) VALUES (?, ?) ON CONFLICT DO NOTHING`, r.examSum, r.examJSON); err != nil {
		return fmt.Errorf("store exam: %w", err)
	}
	if _, err := x.ExecContext(ctx, `DELETE FROM events WHERE session_id = ?`, r.id); err != nil {
		return err
	}
	if _, err := x.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, r.id); err != nil {
		return err
	}
	_, err := x.ExecContext(ctx, `INSERT INTO sessions (`+rawColumns+`) VALUES (`+rawPlaceholders+`)`, r.args()...)
	return err
}

// pgExec adapts a pgx transaction to execer, rebinding placeholders.
type pgExec struct{ tx pgx.Tx }

func (p pgExec) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	_, err := p.tx.Exec(ctx, bind(true, q), args...)
	return nil, err
}

// copyIntoPG writes a session in one transaction, its events with COPY.
func copyIntoPG(ctx context.Context, to *Store, r *rawSession, events []runtime.Event) error {
	tx, err := to.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if err := writeSessionRow(ctx, pgExec{tx}, r); err != nil {
		return err
	}
	rows := make([][]any, len(events))
	for i, ev := range events {
		rows[i] = []any{r.id, ev.Seq, string(ev.Event), ev.Timestamp.UnixNano(), []byte(ev.Payload)}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"events"}, []string{"session_id", "seq", "type", "ts_ns", "payload"},
		pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy events: %w", err)
	}
	return tx.Commit(ctx)
}
