package sessions

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/examtui/examtui/runtime"
)

// pgMaxConns bounds the pool one process uses for reads, lists and session bookkeeping. A live
// session's writes go through its lease connection, outside the pool (see pgLease).
const pgMaxConns = 8

// pgConnectTimeout applies when the URL sets no connect_timeout, so an unreachable server
// gives a clear error instead of a hang.
const pgConnectTimeout = 10 * time.Second

// pgCommitTimeout bounds one group commit: a server that stops answering fails the journal
// (the runtime then stops taking turns) rather than blocking it forever.
const pgCommitTimeout = 30 * time.Second

func openPostgres(ctx context.Context, target string, opts ...Option) (*Store, error) {
	cfg, err := newStoreConfig(opts)
	if err != nil {
		return nil, err
	}
	masked := MaskTarget(target)
	if cfg.localUser != "" {
		return nil, fmt.Errorf("%w: store %s: a local identity is for SQLite only (on PostgreSQL the identity is the role that connects)", ErrInvalidOption, masked)
	}
	pcfg, err := pgxpool.ParseConfig(target)
	if err != nil {
		// pgx's parse errors mask the password already; name the target masked anyway.
		return nil, fmt.Errorf("%w: store %s: %w", ErrInvalidOption, masked, err)
	}
	if pcfg.ConnConfig.ConnectTimeout == 0 {
		pcfg.ConnConfig.ConnectTimeout = pgConnectTimeout
	}
	if pcfg.ConnConfig.RuntimeParams["application_name"] == "" {
		pcfg.ConnConfig.RuntimeParams["application_name"] = "examtui"
	}
	pcfg.MaxConns = pgMaxConns
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", masked, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrStoreUnreachable, masked, err)
	}
	db := &sqlDB{DB: stdlib.OpenDBFromPool(pool), pg: true}
	if err := migrate(ctx, db); err != nil {
		_ = db.Close()
		pool.Close()
		return nil, fmt.Errorf("%s: %w", masked, err)
	}
	s := &Store{engine: EnginePostgres, target: masked, openTarget: target, db: db, pool: pool, connCfg: pcfg.ConnConfig,
		cfg: cfg, log: cfg.logger, owned: map[string]lease{}, journals: map[string]*Journal{}}
	return s.recoverOnOpen(ctx)
}

// pgLease is a session's lease on PostgreSQL: a session-level advisory lock held by a
// connection of its own. The server drops the lock when that connection ends (process killed,
// machine lost: after TCP keepalive notices), so a dead owner never keeps a session. The
// journal writes through this same connection, so no write can happen without the lock: if
// the connection (and with it the lock) is lost, the journal's next commit fails instead of
// racing a new owner.
type pgLease struct {
	conn *pgx.Conn
}

// leaseKeySQL turns a session id into the advisory-lock key, on the server, so every examtui
// version and any operator's query agree on it.
const leaseKeySQL = `hashtextextended('examtui.session:' || $1, 0)`

func (s *Store) acquirePGLease(ctx context.Context, id string) (lease, error) {
	cc := s.connCfg.Copy()
	cc.RuntimeParams["application_name"] = "examtui lease " + id
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrStoreUnreachable, s.target, err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+leaseKeySQL+`)`, id).Scan(&ok); err != nil {
		_ = conn.Close(context.Background())
		return nil, fmt.Errorf("lease %s: %w", id, err)
	}
	if !ok {
		_ = conn.Close(context.Background())
		return nil, ErrSessionBusy
	}
	return &pgLease{conn: conn}, nil
}

func (l *pgLease) release() error {
	if l == nil || l.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Closing the connection drops the advisory lock, but the server ends the backend after
	// the client has gone, so for a moment the lock still shows as held: unlock first, so a
	// reader (OwnerAlive, another process resuming) sees it free as soon as release returns.
	// A connection that is already broken has lost the lock already.
	_, _ = l.conn.Exec(ctx, `SELECT pg_advisory_unlock_all()`)
	err := l.conn.Close(ctx)
	l.conn = nil
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("release lease: %w", err)
	}
	return nil
}

// pgCopyThreshold is the batch size from which COPY beats a pipelined batch of INSERTs.
const pgCopyThreshold = 64

// commitPG writes one batch and the session's aggregates in one transaction on the lease
// connection: a pipelined batch of INSERTs for small groups, COPY for large ones.
func (j *Journal) commitPG(batch []runtime.Event, agg *aggregate) error {
	pl, ok := j.lock.(*pgLease)
	if !ok || pl.conn == nil {
		return errors.New("no lease connection")
	}
	ctx, cancel := context.WithTimeout(context.Background(), pgCommitTimeout)
	defer cancel()
	tx, err := pl.conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	for _, ev := range batch {
		agg.apply(ev)
	}
	b := &pgx.Batch{}
	if len(batch) >= pgCopyThreshold {
		rows := make([][]any, len(batch))
		for i, ev := range batch {
			rows[i] = []any{j.id, ev.Seq, string(ev.Event), ev.Timestamp.UnixNano(), []byte(ev.Payload)}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"events"},
			[]string{"session_id", "seq", "type", "ts_ns", "payload"}, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("copy seq %d..%d: %w", batch[0].Seq, batch[len(batch)-1].Seq, err)
		}
	} else {
		for _, ev := range batch {
			b.Queue(`INSERT INTO events (session_id, seq, type, ts_ns, payload) VALUES ($1, $2, $3, $4, $5)`,
				j.id, ev.Seq, string(ev.Event), ev.Timestamp.UnixNano(), []byte(ev.Payload))
		}
	}
	b.Queue(bind(true, updateAggregateSQL), aggregateArgs(agg, j.id)...)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// pgSchemaV2 is the v2 layout on PostgreSQL (the first layout a PostgreSQL store has).
var pgSchemaV2 = []string{
	`CREATE TABLE sessions (
	id             TEXT PRIMARY KEY,
	exam_id        TEXT NOT NULL,
	title          TEXT NOT NULL,
	candidate      TEXT NOT NULL DEFAULT '',
	examiner       TEXT NOT NULL DEFAULT '',
	input          TEXT NOT NULL DEFAULT '',
	started_ns     BIGINT NOT NULL,
	ended_ns       BIGINT,
	state          TEXT NOT NULL,
	interrupted    INTEGER NOT NULL DEFAULT 0,
	exam_sha256    TEXT NOT NULL,
	spec_path      TEXT NOT NULL DEFAULT '',
	recordings     TEXT NOT NULL DEFAULT '[]',
	owner_pid      INTEGER NOT NULL DEFAULT 0,
	event_count    BIGINT NOT NULL DEFAULT 0,
	last_event_ns  BIGINT,
	evidence_count INTEGER NOT NULL DEFAULT 0,
	coverage       DOUBLE PRECISION NOT NULL DEFAULT 0
)`,
	`CREATE INDEX sessions_started ON sessions (started_ns DESC)`,
	`CREATE TABLE exams (
	sha256    TEXT PRIMARY KEY,
	exam_json TEXT NOT NULL
)`,
	`CREATE TABLE events (
	session_id TEXT NOT NULL,
	seq        BIGINT NOT NULL,
	type       TEXT NOT NULL,
	ts_ns      BIGINT NOT NULL,
	payload    BYTEA NOT NULL,
	PRIMARY KEY (session_id, seq)
)`,
}

func pgMigrateV2(ctx context.Context, tx *sqlTx) error {
	return tx.execAll(ctx, pgSchemaV2...)
}

// recoverRunningPG marks every live-looking session whose lease is free as interrupted, in one
// statement: a transaction-scoped try-lock per candidate (it conflicts with an owner's
// session-level lock) instead of a lease connection each, so a store with many exams running on
// other machines still opens quickly. The candidates are materialised first so the lock is only
// ever tried on them.
func (s *Store) recoverRunningPG(ctx context.Context) error {
	rows, err := s.pool.Query(ctx, `WITH live AS MATERIALIZED (
			SELECT id FROM sessions WHERE ended_ns IS NULL AND interrupted = 0
		), gone AS MATERIALIZED (
			SELECT id FROM live WHERE pg_try_advisory_xact_lock(`+strings.Replace(leaseKeySQL, "$1", "id", 1)+`)
		)
		UPDATE sessions SET interrupted = 1
		WHERE id IN (SELECT id FROM gone) AND ended_ns IS NULL AND interrupted = 0
		RETURNING id`)
	if err != nil {
		return fmt.Errorf("recover interrupted sessions: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("recover interrupted sessions: %w", err)
	}
	for _, id := range ids {
		s.log.Info("session marked interrupted: its process is gone", "session", id)
	}
	return nil
}
