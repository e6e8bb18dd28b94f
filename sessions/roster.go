package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The marking roster (docs/marking.md, "Who marks"): who may mark or moderate which exam. The
// store's owner manages it; on PostgreSQL adding a role grants that database role exactly the
// privileges marking needs (grantMarking) and the row-level security policies of schema v10
// (markingPolicies) keep each marker blind to the others' levels until they have given theirs.

// MarkingRole is what a person may do in an exam's marking.
type MarkingRole int

// Marking roles.
const (
	RoleUnknown MarkingRole = iota
	// RoleMarker gives levels (marks set) for the exam's sessions.
	RoleMarker
	// RoleModerator adjudicates disagreements in sessions they did not mark, and locks.
	RoleModerator
)

var roleNames = map[MarkingRole]string{RoleMarker: "marker", RoleModerator: "moderator"}

func (r MarkingRole) String() string {
	if n, ok := roleNames[r]; ok {
		return n
	}
	return fmt.Sprintf("MarkingRole(%d)", int(r))
}

// MarshalText writes the role as its name.
func (r MarkingRole) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// ParseMarkingRole parses marker or moderator.
func ParseMarkingRole(s string) (MarkingRole, error) {
	for r, n := range roleNames {
		if n == s {
			return r, nil
		}
	}
	return RoleUnknown, fmt.Errorf("%w: %q (marker, moderator)", ErrUnknownRole, s)
}

// RosterEntry is one person's role in one exam's marking.
type RosterEntry struct {
	ExamID  string      `json:"exam"`
	Name    string      `json:"name"`
	Role    MarkingRole `json:"role"`
	AddedBy string      `json:"addedBy"`
	At      time.Time   `json:"at"`
}

// AddToRoster gives name a role in an exam's marking (again: no change). On PostgreSQL name
// must be an existing database role; it is granted what marking needs, and nothing else.
func (s *Store) AddToRoster(ctx context.Context, examID, name string, role MarkingRole) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	examID, name = strings.TrimSpace(examID), strings.TrimSpace(name)
	if examID == "" || name == "" || roleNames[role] == "" {
		return fmt.Errorf("%w: a roster entry needs an exam, a name and a role (marker, moderator)", ErrInvalidOption)
	}
	by, err := s.Identity(ctx)
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if s.engine == EnginePostgres {
		if err := grantMarking(ctx, tx, name); err != nil {
			return fmt.Errorf("roster %s as %s of %s: %w", name, role, examID, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO exam_roster (exam_id, name, role, added_by, at_ns) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, examID, name, role.String(), by, s.cfg.now().UnixNano()); err != nil {
		return fmt.Errorf("roster %s as %s of %s: %w", name, role, examID, ownerOnly(err))
	}
	return tx.Commit()
}

// RemoveFromRoster takes a role away (the database role keeps its grants: it may hold roles in
// other exams; without a roster entry the policies let it do nothing in this one).
func (s *Store) RemoveFromRoster(ctx context.Context, examID, name string, role MarkingRole) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM exam_roster WHERE exam_id = ? AND name = ? AND role = ?`, examID, name, role.String())
	if err != nil {
		return fmt.Errorf("remove %s as %s of %s: %w", name, role, examID, ownerOnly(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("remove %s as %s of %s: %w", name, role, examID, ErrNotOnRoster)
	}
	return nil
}

// Roster lists an exam's roster by role then name; an empty examID lists every exam's.
func (s *Store) Roster(ctx context.Context, examID string) ([]RosterEntry, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT exam_id, name, role, added_by, at_ns FROM exam_roster
		WHERE exam_id = ? OR ? = '' ORDER BY exam_id, role, name`, examID, examID)
	if err != nil {
		return nil, fmt.Errorf("roster of %s: %w", examID, err)
	}
	defer rows.Close()
	var out []RosterEntry
	for rows.Next() {
		var e RosterEntry
		var role string
		var atNs int64
		if err := rows.Scan(&e.ExamID, &e.Name, &role, &e.AddedBy, &atNs); err != nil {
			return nil, err
		}
		e.Role, _ = ParseMarkingRole(role)
		e.At = time.Unix(0, atNs).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// ownerOnly says who may change the roster when the database refused.
func ownerOnly(err error) error {
	if strings.Contains(err.Error(), "permission denied") || strings.Contains(err.Error(), "must be owner") {
		return fmt.Errorf("%w (%w)", ErrOwnerOnly, err)
	}
	return err
}

// markingTablesRead are the tables a marker or moderator reads; markingTablesWrite those they
// write, under the row-level security policies. Nothing else is granted: a marker cannot start,
// change or delete sessions, read join codes or the command channel. The access log is read
// (its last entry chains the next) and appended to — every marking command records who read
// what — and its triggers refuse any change to what is written.
var (
	markingTablesRead  = []string{"schema_version", "sessions", "events", "exams", "exam_roster", "candidates", "marks", "final_marks", "mark_locks", "panel_runs", "access_log"}
	markingTablesWrite = map[string]string{"marks": "INSERT, UPDATE", "final_marks": "INSERT, UPDATE", "mark_locks": "INSERT", "panel_runs": "INSERT", "access_log": "INSERT"}
)

// grantMarking grants a PostgreSQL role what marking needs: the schema, reading the sessions
// it marks, and writing marks, final marks and locks (which the policies narrow to its own rows
// and roles). It refuses a name that is no LOGIN role: a typo must not pass silently.
func grantMarking(ctx context.Context, tx *sqlTx, name string) error {
	var login bool
	err := tx.QueryRowContext(ctx, `SELECT rolcanlogin FROM pg_roles WHERE rolname = ?`, name).Scan(&login)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w: no database role %q (CREATE ROLE %s LOGIN first)", ErrUnknownRole, name, pgx.Identifier{name}.Sanitize())
	case err != nil:
		return err
	case !login:
		return fmt.Errorf("%w: database role %q cannot log in", ErrUnknownRole, name)
	}
	role := pgx.Identifier{name}.Sanitize()
	var schema string
	if err := tx.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return err
	}
	stmts := []string{`GRANT USAGE ON SCHEMA ` + pgx.Identifier{schema}.Sanitize() + ` TO ` + role}
	for _, t := range markingTablesRead {
		stmts = append(stmts, `GRANT SELECT ON `+t+` TO `+role)
	}
	for t, privs := range markingTablesWrite {
		stmts = append(stmts, `GRANT `+privs+` ON `+t+` TO `+role)
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return ownerOnly(err)
		}
	}
	return nil
}

// IsOwner reports whether the store's user owns its tables (on SQLite, always): the owner
// migrates, recovers interrupted sessions and manages the roster; a marker's role does not.
func (s *Store) IsOwner(ctx context.Context) (bool, error) {
	if s.engine != EnginePostgres {
		return true, nil
	}
	return pgIsOwner(ctx, s.db)
}

func pgIsOwner(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (bool, error) {
	var owner bool
	err := q.QueryRowContext(ctx, `SELECT pg_has_role(session_user, tableowner, 'USAGE') FROM pg_tables
		WHERE tablename = 'schema_version' AND schemaname = current_schema()`).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil // no store yet: whoever opens it first creates it
	}
	return owner, err
}
