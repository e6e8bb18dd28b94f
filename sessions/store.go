package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go)
)

// DBFile is the store's file name inside the data directory.
const DBFile = "sessions.db"

const locksDir = "locks"

// Store is the session store: SQLite in one data directory (the default), or a shared
// PostgreSQL database (OpenURL). It is safe for concurrent use, and several processes may open
// the same store at once (SQLite WAL with a busy timeout; PostgreSQL natively).
type Store struct {
	engine Engine
	dir    string // SQLite: the data directory
	target string // what was opened, password masked: the data directory or the URL
	// openTarget is what was opened, unmasked, so the store can be opened again (tests,
	// copies). Never logged or shown.
	openTarget string
	db         *sqlDB
	group      *groupCommitter // SQLite: commits every journal's batches together (groupcommit.go)
	cfg        storeConfig
	log        *slog.Logger

	// PostgreSQL only: the pool behind db, and the connection settings for lease connections.
	pool    *pgxpool.Pool
	connCfg *pgx.ConnConfig

	mu       sync.Mutex
	closed   bool
	owned    map[string]lease // sessions this process owns (created or resumed here)
	journals map[string]*Journal
}

// Open opens (creating if needed) the store in dir, migrates it to SchemaVersion and marks
// sessions whose owning process has died as interrupted.
func Open(ctx context.Context, dir string, opts ...Option) (*Store, error) {
	cfg, err := newStoreConfig(opts)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, fmt.Errorf("%w: empty data directory", ErrInvalidOption)
	}
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	if err := ensureDir(filepath.Join(dir, locksDir)); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, DBFile)
	if err := ensureFile(path); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(cfg.busyTimeout.Milliseconds()))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", cfg.sync.String())
	q.Set("_txlock", "immediate")
	// Deleted rows are overwritten, not just unlinked: a deleted session must not linger in
	// the file's free pages (docs/records.md).
	q.Add("_pragma", "secure_delete(1)")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	raw, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	raw.SetMaxOpenConns(4)
	raw.SetMaxIdleConns(4)
	db := &sqlDB{DB: raw, writeWait: cfg.writeWait}
	// The first connection sets WAL mode, which needs the file to itself while it is still a
	// new rollback-journal file: another process creating it at the same moment makes that
	// fail at once, past any busy timeout, so the open waits its turn like a write.
	if _, err := writeTurn(ctx, cfg.writeWait, func() (struct{}, error) { return struct{}{}, db.PingContext(ctx) }); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := migrate(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	group, err := newGroupCommitter(ctx, db)
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &Store{engine: EngineSQLite, dir: dir, target: dir, openTarget: dir, db: db, group: group, cfg: cfg, log: cfg.logger,
		owned: map[string]lease{}, journals: map[string]*Journal{}}
	return s.recoverOnOpen(ctx)
}

// Dir is the data directory the store lives in (empty for PostgreSQL).
func (s *Store) Dir() string { return s.dir }

// Engine is the database behind the store.
func (s *Store) Engine() Engine { return s.engine }

// Target names the store for people: the data directory, or the PostgreSQL URL with its
// password masked.
func (s *Store) Target() string { return s.target }

func (s *Store) closeDB() error {
	if s.pool == nil {
		var gerr error
		if s.group != nil {
			gerr = s.group.close()
		}
		return errors.Join(gerr, s.db.Close())
	}
	// pgxpool's Close waits until every acquired connection is back, with no deadline: a
	// connection stuck on a database that went away mid-exam must not keep the process from
	// ending (the events anyone saw are committed already; the session is then interrupted).
	done := make(chan error, 1)
	go func() {
		err := s.db.Close()
		s.pool.Close()
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(closeTimeout):
		s.log.Warn("session store: database connections still busy at close; leaving them", "store", s.target, "after", closeTimeout)
		return fmt.Errorf("close %s: connections still busy after %v", s.target, closeTimeout)
	}
}

// closeTimeout bounds how long closing a PostgreSQL store waits for busy connections.
const closeTimeout = 5 * time.Second

// Close commits and closes every journal still open, releases the sessions this process owns
// and closes the database.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	journals := make([]*Journal, 0, len(s.journals))
	for _, j := range s.journals {
		journals = append(journals, j)
	}
	s.mu.Unlock()

	var errs []error
	for _, j := range journals {
		if err := j.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	s.mu.Lock()
	s.closed = true
	for id, l := range s.owned {
		// A session created here that never got a journal stopped without ending.
		if err := s.abandon(id, l); err != nil {
			errs = append(errs, err)
		}
		delete(s.owned, id)
	}
	s.mu.Unlock()
	if err := s.closeDB(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (s *Store) lockPath(id string) string {
	return filepath.Join(s.dir, locksDir, id+".lock")
}

func (s *Store) checkOpen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrStoreClosed
	}
	return nil
}

// recoverOnOpen is an open's last step on either engine: unless WithRecovery(false), dead
// owners' sessions are recovered (recoverInterrupted); a store that cannot recover is closed.
func (s *Store) recoverOnOpen(ctx context.Context) (*Store, error) {
	recover := s.cfg.recover
	if recover && s.engine == EnginePostgres {
		// A marker's role may read sessions but not change them: recovery is the owner's.
		owner, err := s.IsOwner(ctx)
		if err != nil {
			_ = s.closeDB()
			return nil, err
		}
		recover = owner
	}
	if recover {
		if err := s.recoverInterrupted(ctx); err != nil {
			_ = s.closeDB()
			return nil, err
		}
	}
	return s, nil
}

// recoverInterrupted marks every unended session whose lease can be taken (its owner is
// gone) as interrupted, and completes the summary of sessions whose owner died between the
// terminal exam_state and exam_completed.
func (s *Store) recoverInterrupted(ctx context.Context) error {
	if err := s.recoverRunning(ctx); err != nil {
		return err
	}
	return s.recoverSummaries(ctx)
}

func (s *Store) recoverRunning(ctx context.Context) error {
	if s.engine == EnginePostgres {
		return s.recoverRunningPG(ctx) // one statement with transaction-scoped try-locks
	}
	if err := s.sweepEndedLocks(ctx); err != nil {
		return err
	}
	ids, err := s.ownerlessRunning(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		l, err := s.acquireLease(ctx, id)
		if errors.Is(err, ErrSessionBusy) {
			continue // its owner is alive
		}
		if err != nil {
			return err
		}
		// The condition re-checks under the lock: the owner may have ended it meanwhile.
		_, err = s.db.ExecContext(ctx, `UPDATE sessions SET interrupted = 1 WHERE id = ? AND ended_ns IS NULL AND interrupted = 0`, id)
		rerr := l.release()
		if err != nil {
			return fmt.Errorf("mark %s interrupted: %w", id, err)
		}
		if rerr != nil {
			return rerr
		}
		s.log.Info("session marked interrupted: its process is gone", "session", id)
	}
	return nil
}
