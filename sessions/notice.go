package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The recording notice (docs/records.md): the candidate sees it before the microphone opens,
// and the acknowledgement is kept — on the join code the candidate used (the candidate page),
// then on the session the candidate's arrival starts (the room exam copies it), or on the
// session directly (run --mic). Times are Unix ns; NULL or 0: not acknowledged.

// DefaultNotice is the recording notice when neither the exam nor the config file gives one.
const DefaultNotice = "This exam is recorded: your voice, what you say and type, and the examiner's marks are kept by the institution that runs it, for as long as its retention policy says, and you may ask for a copy of them."

// noticeColumns are v11's consent columns.
var noticeColumns = []string{
	`ALTER TABLE join_codes ADD COLUMN notice_ack_ns BIGINT`,
	`ALTER TABLE sessions ADD COLUMN notice_ack_ns BIGINT`,
}

// AcknowledgeJoinNotice records that the candidate holding join code codeHash acknowledged the
// recording notice at at.
func (s *Store) AcknowledgeJoinNotice(ctx context.Context, codeHash string, at time.Time) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE join_codes SET notice_ack_ns = ? WHERE code_hash = ?`, at.UnixNano(), codeHash)
	if err != nil {
		return fmt.Errorf("record the notice acknowledgement: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrJoinCodeNotFound
	}
	return nil
}

// RoomNoticeAck is the latest acknowledgement of the notice by identity through a join code of
// room; false when there is none.
func (s *Store) RoomNoticeAck(ctx context.Context, room, identity string) (time.Time, bool, error) {
	var ns sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MAX(notice_ack_ns) FROM join_codes WHERE room = ? AND identity = ?`, room, identity).Scan(&ns)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, fmt.Errorf("read the notice acknowledgement: %w", err)
	}
	if !ns.Valid || ns.Int64 == 0 {
		return time.Time{}, false, nil
	}
	return time.Unix(0, ns.Int64).UTC(), true, nil
}

// SetNoticeAck records on session id that its candidate acknowledged the notice at at.
func (s *Store) SetNoticeAck(ctx context.Context, id string, at time.Time) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE sessions SET notice_ack_ns = ? WHERE id = ?`, at.UnixNano(), id)
	if err != nil {
		return fmt.Errorf("record the notice acknowledgement of %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return nil
}

// NoticeAck is when session id's candidate acknowledged the notice; false when not recorded.
func (s *Store) NoticeAck(ctx context.Context, id string) (time.Time, bool, error) {
	var ns sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT notice_ack_ns FROM sessions WHERE id = ?`, id).Scan(&ns)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return time.Time{}, false, err
	}
	if !ns.Valid || ns.Int64 == 0 {
		return time.Time{}, false, nil
	}
	return time.Unix(0, ns.Int64).UTC(), true, nil
}
