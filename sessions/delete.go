package sessions

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EncryptedSuffix ends the name of a file encrypted at rest with age (recordings, archives).
const EncryptedSuffix = ".age"

// DeleteRequest says how a session is deleted (DeleteSession).
type DeleteRequest struct {
	// Reason is why, kept in the tombstone ("requested by the candidate", "retention").
	Reason string
	// Force deletes a session whose marks are locked; without it that is refused with
	// ErrLockedMarks.
	Force bool
	// DataDir is the data directory whose files (recordings, logs) the deletion also clears;
	// on SQLite the store's own directory is always cleared.
	DataDir string
	// Logs are log files to clear of the session's lines (examtui.log of the data directory).
	Logs []string
	// By is who deletes; empty: the store's Identity.
	By string
}

// Deleted is what a deletion removed.
type Deleted struct {
	ID string
	// Rows counts the rows removed per table.
	Rows map[string]int64
	// Files are the files and directories removed; LogLines the log lines cleared.
	Files    []string
	LogLines int
	// Checkpointed: SQLite's write-ahead log was checkpointed and truncated, so the deleted
	// rows' old pages are gone from it too.
	Checkpointed bool
}

// LockedMarksError says what deleting a session with locked marks would lose.
type LockedMarksError struct {
	ID         string
	Lock       MarkLock
	Marks      int
	FinalMarks int
}

func (e *LockedMarksError) Error() string {
	return fmt.Sprintf("session %s has marks locked by %s on %s (%d marks, %d final marks); deleting it loses them: give --force to delete anyway",
		e.ID, e.Lock.Marker, e.Lock.At.Format("2006-01-02"), e.Marks, e.FinalMarks)
}

func (e *LockedMarksError) Unwrap() error { return ErrLockedMarks }

// sessionTablesExempt are the tables keyed by session that a deletion keeps: the access log,
// where the tombstone and the record of who saw the session stay (never the candidate's name).
var sessionTablesExempt = map[string]bool{"access_log": true}

// Delete removes a session completely (DeleteSession with no reason, not forced).
func (s *Store) Delete(ctx context.Context, id string) error {
	_, err := s.DeleteSession(ctx, id, DeleteRequest{})
	return err
}

// DeleteSession removes every trace of a session: its row and every row of every table with a
// session_id column (found in the schema catalog, so a table added later is covered), the
// compiled exam when no other session uses it, join codes naming the candidate when no other
// session does, its recordings and its folder under the data directory, and its lines in the
// given logs; then it appends the tombstone (id, when, by whom, why) to the access log and, on
// SQLite (secure_delete is on for every connection), checkpoints and truncates the write-ahead
// log so the old pages leave the files. A session running in any process is refused; one with
// locked marks is refused with a *LockedMarksError unless req.Force.
func (s *Store) DeleteSession(ctx context.Context, id string, req DeleteRequest) (Deleted, error) {
	out := Deleted{ID: id, Rows: map[string]int64{}}
	if err := s.checkOpen(); err != nil {
		return out, err
	}
	lock, err := s.takeLease(ctx, id)
	if err != nil {
		return out, fmt.Errorf("delete %s: %w", id, err)
	}
	defer func() { _ = lock.release() }()
	sess, err := s.Get(ctx, id)
	if err != nil {
		s.removeLockFile(id)
		return out, err
	}
	if err := s.refuseLocked(ctx, id, req.Force); err != nil {
		return out, err
	}
	by := req.By
	if by == "" {
		if by, err = s.Identity(ctx); err != nil {
			return out, err
		}
	}
	tables, err := s.sessionTables(ctx)
	if err != nil {
		return out, fmt.Errorf("delete %s: %w", id, err)
	}
	var candidateID string // read before the session's row goes
	if err := s.db.QueryRowContext(ctx, `SELECT candidate_id FROM sessions WHERE id = ?`, id).Scan(&candidateID); err != nil {
		return out, fmt.Errorf("delete %s: %w", id, err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return out, fmt.Errorf("delete %s: %w", id, err)
	}
	defer func() { _ = tx.Rollback() }()
	count := func(table, q string, args ...any) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("delete %s from %s: %w", id, table, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			out.Rows[table] += n
		}
		return nil
	}
	for _, t := range tables {
		if err := count(t, `DELETE FROM `+t+` WHERE session_id = ?`, id); err != nil {
			return out, err
		}
	}
	if err := count("sessions", `DELETE FROM sessions WHERE id = ?`, id); err != nil {
		return out, err
	}
	// The compiled exam goes with its last session.
	if err := count("exams", `DELETE FROM exams WHERE sha256 NOT IN (SELECT exam_sha256 FROM sessions)`); err != nil {
		return out, err
	}
	// Join codes know a room and a name, not a session: the candidate's go when no other
	// session is theirs.
	if name := strings.TrimSpace(sess.Candidate); name != "" {
		if err := count("join_codes", `DELETE FROM join_codes WHERE display_name = ? AND NOT EXISTS (SELECT 1 FROM sessions WHERE candidate = ?)`, name, name); err != nil {
			return out, err
		}
	}
	// The candidate's roster entry (their name and the institution's ids for them) goes with
	// their last session, as their join codes do.
	if candidateID != "" {
		if err := count("candidates", `DELETE FROM candidates WHERE candidate_id = ? AND NOT EXISTS (SELECT 1 FROM sessions WHERE candidate_id = ?)`,
			candidateID, candidateID); err != nil {
			return out, err
		}
		for _, t := range personTables {
			if !s.hasTable(ctx, t) {
				continue
			}
			if err := count(t, `DELETE FROM `+t+` WHERE candidate_id = ? AND NOT EXISTS (SELECT 1 FROM sessions WHERE candidate_id = ?)`,
				candidateID, candidateID); err != nil {
				return out, err
			}
		}
	}
	reason := req.Reason
	if name := strings.TrimSpace(sess.Candidate); name != "" {
		reason = strings.ReplaceAll(reason, name, "(the candidate)") // the tombstone names no one
	}
	tomb := AccessEntry{Who: by, Action: AccessDelete, SessionID: id, Detail: tombstoneDetail(reason, req.Force), At: s.cfg.now()}
	tomb.From = s.origin(ctx)
	if err := appendAccess(ctx, tx, &tomb); err != nil {
		return out, err
	}
	if err := tx.Commit(); err != nil {
		return out, fmt.Errorf("delete %s: %w", id, err)
	}
	s.removeLockFile(id)
	files, ferr := removeSessionFiles(id, sess.Recordings, s.dir, req.DataDir)
	out.Files = files
	n, lerr := scrubLogs(id, req.Logs)
	out.LogLines = n
	out.Checkpointed = s.checkpoint(ctx)
	s.log.Info("session deleted", "session", id, "rows", out.Rows, "files", len(out.Files), "logLines", n)
	return out, errors.Join(ferr, lerr)
}

func tombstoneDetail(reason string, forced bool) string {
	d := "deleted"
	if forced {
		d += " (forced past locked marks)"
	}
	if r := strings.TrimSpace(reason); r != "" {
		d += ": " + r
	}
	return d
}

// refuseLocked returns a *LockedMarksError for a session whose marks are locked, unless force.
func (s *Store) refuseLocked(ctx context.Context, id string, force bool) error {
	l, locked, err := s.MarkLock(ctx, id)
	if err != nil || !locked || force {
		return err
	}
	marks, err := s.Marks(ctx, id)
	if err != nil {
		return err
	}
	finals, err := s.FinalMarks(ctx, id)
	if err != nil {
		return err
	}
	return &LockedMarksError{ID: id, Lock: l, Marks: len(marks), FinalMarks: len(finals)}
}

// sessionTables lists, from the schema catalog, every table with a session_id column except
// the exempt ones: the tables a session's deletion clears.
func (s *Store) sessionTables(ctx context.Context) ([]string, error) {
	cols, err := s.tableColumns(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for t, cs := range cols {
		if sessionTablesExempt[t] {
			continue
		}
		for _, c := range cs {
			if c == "session_id" {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// tableColumns maps every table of the store to its column names, from the catalog.
func (s *Store) tableColumns(ctx context.Context) (map[string][]string, error) {
	q := `SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`
	if s.engine == EnginePostgres {
		q = `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read the schema catalog: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return nil, err
		}
		out[t] = append(out[t], c)
	}
	return out, rows.Err()
}

// removeSessionFiles removes the session's recordings and the folder made for it
// (<data dir>/sessions/<id>) under each data directory given.
func removeSessionFiles(id string, recordings []string, dirs ...string) ([]string, error) {
	var removed []string
	var errs []error
	rm := func(p string) {
		if _, err := os.Lstat(p); err != nil {
			return
		}
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", p, err))
			return
		}
		removed = append(removed, p)
	}
	for _, p := range recordings {
		rm(p)
		rm(p + EncryptedSuffix)
		// A recording's folder is named for the session (or a take-N folder inside it).
		for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
			if filepath.Base(d) == id {
				rm(d)
				break
			}
		}
	}
	for _, dir := range dirs {
		if dir != "" && id != "" {
			rm(filepath.Join(dir, "sessions", id))
		}
	}
	return removed, errors.Join(errs...)
}

// scrubLogs rewrites each log file without the lines naming session id, returning how many
// lines went. The file is replaced whole (write a copy, rename), keeping its mode.
func scrubLogs(id string, logs []string) (int, error) {
	var n int
	var errs []error
	for _, path := range logs {
		k, err := scrubLog(path, id)
		n += k
		if err != nil {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

func scrubLog(path, id string) (int, error) {
	return rewriteLog(path, func(line []byte) bool { return !bytes.Contains(line, []byte(id)) })
}

// rewriteLog keeps the lines of path that keep says to, returning how many went.
func rewriteLog(path string, keep func(line []byte) bool) (int, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read log %s: %w", path, err)
	}
	var out bytes.Buffer
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		if keep(sc.Bytes()) {
			out.Write(sc.Bytes())
			out.WriteByte('\n')
		} else {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read log %s: %w", path, err)
	}
	if n == 0 {
		return 0, nil
	}
	tmp := path + ".scrub"
	if err := os.WriteFile(tmp, out.Bytes(), 0o600); err != nil {
		return 0, fmt.Errorf("rewrite log %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return 0, fmt.Errorf("rewrite log %s: %w", path, err)
	}
	return n, nil
}

// checkpoint moves SQLite's write-ahead log into the database file and truncates it, so pages
// the deletion overwrote (secure_delete) leave no older copy behind; false when readers kept it
// from completing (the next checkpoint finishes it). PostgreSQL: VACUUM's business
// (docs/records.md).
func (s *Store) checkpoint(ctx context.Context) bool {
	if s.engine != EngineSQLite {
		return false
	}
	var busy, logPages, done int
	if err := s.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &done); err != nil {
		s.log.Warn("checkpoint after delete", "err", err)
		return false
	}
	return busy == 0
}

// personTables hold a candidate's data by candidate_id rather than by session (an LMS's
// launches): a deletion removes the candidate's rows with their last session.
var personTables = []string{"lti_launches"}

// hasTable reports whether the store has table t (a table a later schema adds).
func (s *Store) hasTable(ctx context.Context, t string) bool {
	cols, err := s.tableColumns(ctx)
	return err == nil && cols[t] != nil
}
