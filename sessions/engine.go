package sessions

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Engine is the database behind a Store.
type Engine int

// Engines.
const (
	// EngineSQLite is the embedded default: one file in the data directory.
	EngineSQLite Engine = iota
	// EnginePostgres is a shared PostgreSQL database, for exams on several machines.
	EnginePostgres
)

func (e Engine) String() string {
	switch e {
	case EngineSQLite:
		return "sqlite"
	case EnginePostgres:
		return "postgres"
	}
	return fmt.Sprintf("Engine(%d)", int(e))
}

// EnvStore names the store (a data directory or a postgres:// URL) when no --store flag is given.
const EnvStore = "EXAMTUI_STORE"

// IsPostgresURL reports whether target selects PostgreSQL: a postgres:// or postgresql:// URL,
// or a libpq keyword/value connection string ("host=db user=exam dbname=exams").
func IsPostgresURL(target string) bool {
	t := strings.ToLower(strings.TrimSpace(target))
	return strings.HasPrefix(t, "postgres://") || strings.HasPrefix(t, "postgresql://") || isKeywordDSN(t)
}

// libpqKeywords are the connection parameters libpq (and pgx) read from a keyword/value
// string; a target whose first word sets one of them is a connection string, never a data
// directory, so its password can never become part of a path.
var libpqKeywords = map[string]bool{"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true,
	"password": true, "passfile": true, "sslmode": true, "sslcert": true, "sslkey": true, "sslrootcert": true,
	"sslpassword": true, "connect_timeout": true, "application_name": true, "options": true, "service": true,
	"target_session_attrs": true, "search_path": true}

func isKeywordDSN(target string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(target), " ")
	key, _, ok := strings.Cut(first, "=")
	return ok && libpqKeywords[strings.ToLower(strings.TrimSpace(key))]
}

// dsnPassword finds a password in a keyword/value string: a quoted value (with \' and \\
// escapes) or a bare word.
var dsnPassword = regexp.MustCompile(`(?i)\b(password|sslpassword)(\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)`)

// OpenURL opens the store target names: a postgres:// or postgresql:// URL, or a libpq
// keyword/value connection string, selects PostgreSQL;
// anything else is a data directory and selects SQLite there, exactly as Open does. Errors and
// logs name the target with its password masked (MaskTarget).
func OpenURL(ctx context.Context, target string, opts ...Option) (*Store, error) {
	target = strings.TrimSpace(target)
	if target == "" {
		return nil, fmt.Errorf("%w: empty store (a data directory or a postgres:// URL)", ErrInvalidOption)
	}
	if IsPostgresURL(target) {
		return openPostgres(ctx, target, opts...)
	}
	if strings.Contains(target, "://") {
		return nil, fmt.Errorf("%w: store %q: only postgres:// and postgresql:// URLs are supported (or a data directory)",
			ErrInvalidOption, MaskTarget(target))
	}
	dir, err := filepath.Abs(target)
	if err != nil {
		return nil, fmt.Errorf("store %q: %w", target, err)
	}
	return Open(ctx, dir, opts...)
}

// MaskTarget returns target fit for logs, messages and exports: a URL's password (in the
// user-info or a password= query parameter) is replaced by "xxxxx". A data directory is
// returned as given.
func MaskTarget(target string) string {
	if isKeywordDSN(target) {
		return dsnPassword.ReplaceAllString(target, "${1}${2}xxxxx")
	}
	if !strings.Contains(target, "://") {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		// An unparsable URL may still carry a password: show only its scheme.
		if i := strings.Index(target, "://"); i > 0 {
			return target[:i] + "://(unparsable URL)"
		}
		return "(unparsable URL)"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	changed := false
	for k := range q {
		if strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword") {
			q.Set(k, "xxxxx")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// sqlDB is the store's database handle. PostgreSQL numbers its placeholders ($1, $2, ...):
// queries are written once with SQLite's "?" and rebound here, so every query exists once.
type sqlDB struct {
	*sql.DB
	pg bool
	// writeWait bounds how long a SQLite write waits its turn for the write lock (writeturn.go);
	// zero on PostgreSQL, whose row locks queue.
	writeWait time.Duration
}

func bind(pg bool, q string) string {
	if !pg || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// ExecContext runs one statement; on SQLite a write waits its turn (writeTurn).
func (d *sqlDB) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return writeTurn(ctx, d.writeWait, func() (sql.Result, error) { return d.DB.ExecContext(ctx, bind(d.pg, q), args...) })
}

func (d *sqlDB) Exec(q string, args ...any) (sql.Result, error) {
	return d.ExecContext(context.Background(), q, args...)
}

func (d *sqlDB) QueryRow(q string, args ...any) *sql.Row {
	return d.DB.QueryRow(bind(d.pg, q), args...)
}

func (d *sqlDB) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return d.DB.QueryContext(ctx, bind(d.pg, q), args...)
}

func (d *sqlDB) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return d.DB.QueryRowContext(ctx, bind(d.pg, q), args...)
}

func (d *sqlDB) PrepareContext(ctx context.Context, q string) (*sql.Stmt, error) {
	return d.DB.PrepareContext(ctx, bind(d.pg, q))
}

// BeginTx begins a transaction; on SQLite every one is BEGIN IMMEDIATE (it takes the write
// lock at once, so it cannot fail later for want of it), and it waits its turn (writeTurn).
func (d *sqlDB) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sqlTx, error) {
	tx, err := writeTurn(ctx, d.writeWait, func() (*sql.Tx, error) { return d.DB.BeginTx(ctx, opts) })
	if err != nil {
		return nil, err
	}
	return &sqlTx{Tx: tx, pg: d.pg}, nil
}

// sqlTx is a transaction with the same rebinding as sqlDB.
type sqlTx struct {
	*sql.Tx
	pg bool
}

func (t *sqlTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.Tx.ExecContext(ctx, bind(t.pg, q), args...)
}

func (t *sqlTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.Tx.QueryContext(ctx, bind(t.pg, q), args...)
}

func (t *sqlTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return t.Tx.QueryRowContext(ctx, bind(t.pg, q), args...)
}

func (t *sqlTx) PrepareContext(ctx context.Context, q string) (*sql.Stmt, error) {
	return t.Tx.PrepareContext(ctx, bind(t.pg, q))
}

// execAll runs the statements qs in order, stopping at the first that fails: the steps of a
// migration.
func (t *sqlTx) execAll(ctx context.Context, qs ...string) error {
	for _, q := range qs {
		if _, err := t.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// rowSet is what the hot read paths (List, Events, LoadEvents) iterate: *sql.Rows on SQLite,
// pgx's native rows on PostgreSQL, which skip database/sql's per-value conversions.
type rowSet interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// query runs a read on the engine's fastest path; close must be called when done.
func (s *Store) query(ctx context.Context, q string, args ...any) (rows rowSet, close func(), err error) {
	if s.pool != nil {
		r, err := s.pool.Query(ctx, bind(true, q), args...)
		if err != nil {
			return nil, nil, err
		}
		return r, r.Close, nil
	}
	r, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, err
	}
	return r, func() { _ = r.Close() }, nil
}
