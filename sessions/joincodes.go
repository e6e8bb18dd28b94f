package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Join codes (docs/candidate.md): the one-time links `examtui serve` turns into a candidate's
// LiveKit token. The store keeps only hashes: the code's and the seat cookie's that the browser
// which redeemed it holds, so a copy of the database admits nobody.
const joinCodesSchema = `CREATE TABLE IF NOT EXISTS join_codes (
	code_hash    TEXT PRIMARY KEY,
	room         TEXT NOT NULL,
	identity     TEXT NOT NULL,
	display_name TEXT NOT NULL DEFAULT '',
	created_ns   BIGINT NOT NULL,
	expires_ns   BIGINT NOT NULL,
	redeemed_ns  BIGINT,
	seat_hash    TEXT
)`

// migrateV7 adds the join_codes table (same SQL on both engines).
func migrateV7(ctx context.Context, tx *sqlTx) error {
	_, err := tx.ExecContext(ctx, joinCodesSchema)
	return err
}

// migrateV9 adds revoked_ns: a link revoked (by a newer link for the same candidate, or by hand)
// admits nobody, its seat included. The index serves the revocation by room and identity.
func migrateV9(ctx context.Context, tx *sqlTx) error {
	for _, q := range []string{
		`ALTER TABLE join_codes ADD COLUMN revoked_ns BIGINT`,
		`CREATE INDEX IF NOT EXISTS join_codes_room_identity ON join_codes (room, identity)`,
		`CREATE INDEX IF NOT EXISTS join_codes_expires ON join_codes (expires_ns)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// migrateV14 adds candidate_id: the roster candidate a link was made for (token --link
// --candidate-id, dispatch --candidate-id), whom the room exam attaches to its session when
// that identity arrives. Empty: a link for no roster entry.
func migrateV14(ctx context.Context, tx *sqlTx) error {
	_, err := tx.ExecContext(ctx, `ALTER TABLE join_codes ADD COLUMN candidate_id TEXT NOT NULL DEFAULT ''`)
	return err
}

// JoinCode is one stored join code: who it admits to which room, and until when.
type JoinCode struct {
	// CodeHash is the hex SHA-256 of the code; the code itself is never stored.
	CodeHash    string
	Room        string
	Identity    string
	DisplayName string
	// CandidateID is the roster candidate the link is for ("" for none); it must be in the
	// roster (examtui candidates import).
	CandidateID string
	Created     time.Time
	Expires     time.Time
	// Redeemed is when a browser first used the code (zero while unused); SeatHash is the hash
	// of the seat cookie that browser got.
	Redeemed time.Time
	SeatHash string
	// Revoked is when the code was revoked (zero while it stands): it admits nobody since.
	Revoked time.Time
}

// validate reports what makes c unstorable.
func (c JoinCode) validate() error {
	switch {
	case len(c.CodeHash) != 64:
		return fmt.Errorf("%w: code hash must be a hex SHA-256", ErrInvalidJoinCode)
	case c.Room == "":
		return fmt.Errorf("%w: no room", ErrInvalidJoinCode)
	case c.Identity == "":
		return fmt.Errorf("%w: no identity", ErrInvalidJoinCode)
	case !c.Expires.After(c.Created):
		return fmt.Errorf("%w: expires %s, not after its creation %s", ErrInvalidJoinCode, c.Expires.Format(time.RFC3339), c.Created.Format(time.RFC3339))
	}
	return nil
}

// CreateJoinCode stores a new, unused join code and revokes, in the same transaction, every
// earlier code of the same candidate in the same room, with its seat: whoever holds an older
// link (a lost or stolen one) cannot join or rejoin once a new one is issued.
func (s *Store) CreateJoinCode(ctx context.Context, c JoinCode) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := c.validate(); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store a join code for room %q: %w", c.Room, err)
	}
	defer func() { _ = tx.Rollback() }()
	if c.CandidateID != "" {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM candidates WHERE candidate_id = ?`, c.CandidateID).Scan(&n); err != nil {
			return fmt.Errorf("store a join code for room %q: %w", c.Room, err)
		}
		if n == 0 {
			return fmt.Errorf("a join link for candidate %q: %w", c.CandidateID, ErrNoCandidate)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE join_codes SET revoked_ns = ? WHERE room = ? AND identity = ? AND revoked_ns IS NULL`,
		c.Created.UnixNano(), c.Room, c.Identity); err != nil {
		return fmt.Errorf("revoke the earlier join codes of %q in room %q: %w", c.Identity, c.Room, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO join_codes (code_hash, room, identity, display_name, candidate_id, created_ns, expires_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, c.CodeHash, c.Room, c.Identity, c.DisplayName, c.CandidateID, c.Created.UnixNano(), c.Expires.UnixNano()); err != nil {
		return fmt.Errorf("store a join code for room %q: %w", c.Room, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store a join code for room %q: %w", c.Room, err)
	}
	return nil
}

// RevokeJoinCodes revokes the standing codes of a room, of one candidate (identity) or of all
// (identity ""), with their seats, and returns how many it revoked.
func (s *Store) RevokeJoinCodes(ctx context.Context, room, identity string, now time.Time) (int, error) {
	if err := s.checkOpen(); err != nil {
		return 0, err
	}
	if room == "" {
		return 0, fmt.Errorf("%w: no room", ErrInvalidJoinCode)
	}
	q, args := `UPDATE join_codes SET revoked_ns = ? WHERE room = ? AND revoked_ns IS NULL`, []any{now.UnixNano(), room}
	if identity != "" {
		q, args = q+` AND identity = ?`, append(args, identity)
	}
	res, err := s.db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("revoke the join codes of room %q: %w", room, err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// PurgeJoinCodes deletes the codes that can admit nobody any more as of now: never used and
// expired, revoked, or used by a seat older than seatTTL. It returns how many it deleted.
func (s *Store) PurgeJoinCodes(ctx context.Context, now time.Time, seatTTL time.Duration) (int, error) {
	if err := s.checkOpen(); err != nil {
		return 0, err
	}
	n := now.UnixNano()
	res, err := s.db.ExecContext(ctx, `DELETE FROM join_codes WHERE revoked_ns IS NOT NULL
		OR (redeemed_ns IS NULL AND expires_ns <= ?) OR (redeemed_ns IS NOT NULL AND redeemed_ns <= ?)`,
		n, now.Add(-seatTTL).UnixNano())
	if err != nil {
		return 0, fmt.Errorf("purge join codes: %w", err)
	}
	k, err := res.RowsAffected()
	return int(k), err
}

// RedeemJoinCode seats a browser on a code: the first caller on an unexpired, unused code
// records seatHash and wins; a later call with the same seatHash (a reload of that browser) is
// admitted again while the seat is younger than seatTTL; any other call is refused with
// ErrJoinCodeUsed. Unknown codes give ErrJoinCodeNotFound, codes never used before they
// expired ErrJoinCodeExpired, revoked codes (seat included) ErrJoinCodeRevoked.
//
// The claim is one conditional UPDATE, so two browsers racing with one code cannot both win on
// either engine: SQLite serialises writers, and PostgreSQL re-checks the WHERE clause of the
// second update against the first one's committed row.
func (s *Store) RedeemJoinCode(ctx context.Context, codeHash, seatHash string, now time.Time, seatTTL time.Duration) (JoinCode, error) {
	if err := s.checkOpen(); err != nil {
		return JoinCode{}, err
	}
	if seatHash == "" {
		return JoinCode{}, fmt.Errorf("%w: no seat hash", ErrInvalidJoinCode)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE join_codes SET redeemed_ns = ?, seat_hash = ?
		WHERE code_hash = ? AND redeemed_ns IS NULL AND revoked_ns IS NULL AND expires_ns > ?`, now.UnixNano(), seatHash, codeHash, now.UnixNano())
	if err != nil {
		return JoinCode{}, fmt.Errorf("redeem a join code: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return JoinCode{}, fmt.Errorf("redeem a join code: %w", err)
	}
	c, err := s.joinCode(ctx, codeHash)
	if err != nil {
		return JoinCode{}, err
	}
	switch {
	case n == 1:
		return c, nil
	case !c.Revoked.IsZero():
		return JoinCode{}, ErrJoinCodeRevoked
	case c.Redeemed.IsZero():
		return JoinCode{}, ErrJoinCodeExpired
	case c.SeatHash != seatHash:
		return JoinCode{}, ErrJoinCodeUsed
	case !now.Before(c.Redeemed.Add(seatTTL)):
		return JoinCode{}, ErrJoinCodeExpired
	}
	return c, nil
}

// JoinCodes returns the join codes of a room, newest first (what `sessions` tooling and tests
// look at; hashes only).
func (s *Store) JoinCodes(ctx context.Context, room string) ([]JoinCode, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+joinCodeColumns+` FROM join_codes WHERE room = ? ORDER BY created_ns DESC, code_hash`, room)
	if err != nil {
		return nil, fmt.Errorf("join codes of room %q: %w", room, err)
	}
	defer rows.Close()
	var out []JoinCode
	for rows.Next() {
		c, err := scanJoinCode(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

const joinCodeColumns = `code_hash, room, identity, display_name, candidate_id, created_ns, expires_ns, redeemed_ns, seat_hash, revoked_ns`

// RoomCandidateID is the roster candidate id of the latest join link of identity in room: the
// candidate a room exam attaches to its session when that identity arrives; "" when the link
// names none or there is no link.
func (s *Store) RoomCandidateID(ctx context.Context, room, identity string) (string, error) {
	if err := s.checkOpen(); err != nil {
		return "", err
	}
	var id string
	err := s.db.QueryRowContext(ctx, `SELECT candidate_id FROM join_codes WHERE room = ? AND identity = ?
		ORDER BY created_ns DESC, code_hash LIMIT 1`, room, identity).Scan(&id)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("the candidate of %q's join link in room %q: %w", identity, room, err)
	}
	return id, nil
}

// JoinCodeOf returns the join code with this hash, whatever its state (ErrJoinCodeNotFound
// when there is none): what the join page needs to know of the room it opens.
func (s *Store) JoinCodeOf(ctx context.Context, codeHash string) (JoinCode, error) {
	if err := s.checkOpen(); err != nil {
		return JoinCode{}, err
	}
	return s.joinCode(ctx, codeHash)
}

func (s *Store) joinCode(ctx context.Context, codeHash string) (JoinCode, error) {
	c, err := scanJoinCode(s.db.QueryRowContext(ctx, `SELECT `+joinCodeColumns+` FROM join_codes WHERE code_hash = ?`, codeHash))
	if errors.Is(err, sql.ErrNoRows) {
		return JoinCode{}, ErrJoinCodeNotFound
	}
	return c, err
}

func scanJoinCode(r scanner) (JoinCode, error) {
	var (
		c                JoinCode
		created, expires int64
		redeemed         sql.NullInt64
		seat             sql.NullString
		revoked          sql.NullInt64
	)
	if err := r.Scan(&c.CodeHash, &c.Room, &c.Identity, &c.DisplayName, &c.CandidateID, &created, &expires, &redeemed, &seat, &revoked); err != nil {
		return JoinCode{}, fmt.Errorf("read a join code: %w", err)
	}
	c.Created, c.Expires = time.Unix(0, created).UTC(), time.Unix(0, expires).UTC()
	if redeemed.Valid {
		c.Redeemed = time.Unix(0, redeemed.Int64).UTC()
	}
	c.SeatHash = seat.String
	if revoked.Valid {
		c.Revoked = time.Unix(0, revoked.Int64).UTC()
	}
	return c, nil
}
