package sessions

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
)

// The control channel for exams that are not in a LiveKit room. A control room (examtui
// monitor) writes examiner commands for a session into the commands table; the process that
// owns the session (a console, headless or voice run, a room bot) polls the table, takes its
// commands in seq order and applies them through the controller, which records each as an
// admin_instruction event naming the sender. Commands are per session and numbered from 1; a
// command is taken once (consumed_ns set), so two readers never apply it twice.
//
// The table comes with schema v4 on both engines. Its SQL says IF NOT EXISTS because v3 stores
// of the first monitor release created it on first use.
const commandsSchema = `CREATE TABLE IF NOT EXISTS commands (
	session_id  TEXT NOT NULL,
	seq         BIGINT NOT NULL,
	kind        TEXT NOT NULL,
	action      TEXT NOT NULL,
	text        TEXT NOT NULL DEFAULT '',
	sender      TEXT NOT NULL,
	created_ns  BIGINT NOT NULL,
	consumed_ns BIGINT,
	PRIMARY KEY (session_id, seq)
)`

// CommandKind says what a stored command does.
type CommandKind string

// Command kinds.
const (
	CommandControl CommandKind = "control" // Action: pause | resume | skip | advance | end
	CommandAdmin   CommandKind = "admin"   // Action: immediate | queued | say; Text: the instruction or the line to say
)

func (k CommandKind) String() string { return string(k) }

// Command is one examiner command sent through the store.
type Command struct {
	SessionID string
	Seq       int64 // set by SendCommand
	Kind      CommandKind
	Action    string
	Text      string
	Sender    string
	CreatedAt time.Time // set by SendCommand
}

// ErrInvalidCommand reports a command that cannot be sent as given.
var ErrInvalidCommand = errors.New("invalid command")

func (c *Command) validate() error {
	switch c.Kind {
	case CommandControl:
		if _, err := runtime.ParseControlAction(c.Action); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidCommand, err)
		}
		if c.Text != "" {
			return fmt.Errorf("%w: a control takes no text", ErrInvalidCommand)
		}
	case CommandAdmin:
		if _, err := runtime.ParseInstructionMode(c.Action); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidCommand, err)
		}
		if strings.TrimSpace(c.Text) == "" {
			return fmt.Errorf("%w: empty instruction", ErrInvalidCommand)
		}
	default:
		return fmt.Errorf("%w: kind %q (want control or admin)", ErrInvalidCommand, c.Kind)
	}
	if strings.TrimSpace(c.Sender) == "" {
		return fmt.Errorf("%w: no sender", ErrInvalidCommand)
	}
	return nil
}

// migrateV4 adds the commands table (same SQL on both engines).
func migrateV4(ctx context.Context, tx *sqlTx) error {
	_, err := tx.ExecContext(ctx, commandsSchema)
	return err
}

// sendRetries bounds how often SendCommand retries when a concurrent sender took the same seq.
const sendRetries = 5

// SendCommand queues c for the process that owns c.SessionID and returns it with its seq and
// time. A session that has ended or does not exist is refused.
func (s *Store) SendCommand(ctx context.Context, c Command) (Command, error) {
	if err := s.checkOpen(); err != nil {
		return Command{}, err
	}
	if err := c.validate(); err != nil {
		return Command{}, err
	}
	var ended sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT ended_ns FROM sessions WHERE id = ?`, c.SessionID).Scan(&ended)
	if errors.Is(err, sql.ErrNoRows) {
		return Command{}, fmt.Errorf("%w: %q", ErrNotFound, c.SessionID)
	}
	if err != nil {
		return Command{}, fmt.Errorf("send command to %s: %w", c.SessionID, err)
	}
	if ended.Valid {
		return Command{}, fmt.Errorf("send command to %s: %w", c.SessionID, ErrSessionEnded)
	}
	c.Text, c.Sender = textsafe.MaskSecrets(c.Text), textsafe.MaskSecrets(c.Sender)
	c.CreatedAt = s.cfg.now().UTC()
	for attempt := 0; ; attempt++ {
		// Two senders racing for one seq collide on the primary key (SQLite serialises the
		// transactions anyway); the loser retries with the next number.
		c.Seq, err = s.insertCommand(ctx, c)
		if err == nil || attempt >= sendRetries || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return Command{}, fmt.Errorf("send command to %s: %w", c.SessionID, err)
	}
	return c, nil
}

func (s *Store) insertCommand(ctx context.Context, c Command) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	if s.engine == EnginePostgres {
		// Under READ COMMITTED concurrent senders would all read the same MAX(seq) and all but
		// one fail on the key; locking the session's row queues them instead. (SQLite's write
		// transactions are serialised already.)
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM sessions WHERE id = ? FOR UPDATE`, c.SessionID); err != nil {
			return 0, err
		}
	}
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM commands WHERE session_id = ?`, c.SessionID).Scan(&seq); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO commands (session_id, seq, kind, action, text, sender, created_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, c.SessionID, seq, string(c.Kind), c.Action, c.Text, c.Sender, c.CreatedAt.UnixNano()); err != nil {
		return 0, err
	}
	return seq, tx.Commit()
}

// TakeCommands returns the commands queued for sessionID that nobody has taken, in seq order,
// and marks them taken. Polling an empty queue is one read.
func (s *Store) TakeCommands(ctx context.Context, sessionID string) ([]Command, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	var pending int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM commands WHERE session_id = ? AND consumed_ns IS NULL`,
		sessionID).Scan(&pending); err != nil {
		return nil, fmt.Errorf("poll commands of %s: %w", sessionID, err)
	}
	if pending == 0 {
		return nil, nil
	}
	// One statement marks and returns the queue, so two readers of one session (a resumed
	// owner and the one it replaced, say) never take the same command: on SQLite the write
	// serialises them; on PostgreSQL the second UPDATE waits for the first's row locks and
	// re-checks consumed_ns IS NULL, finding those rows taken.
	rows, err := s.db.QueryContext(ctx, `UPDATE commands SET consumed_ns = ?
		WHERE session_id = ? AND consumed_ns IS NULL
		RETURNING seq, kind, action, text, sender, created_ns`, s.cfg.now().UnixNano(), sessionID)
	if err != nil {
		return nil, fmt.Errorf("take commands of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []Command
	for rows.Next() {
		c := Command{SessionID: sessionID}
		var kind string
		var created int64
		if err := rows.Scan(&c.Seq, &kind, &c.Action, &c.Text, &c.Sender, &created); err != nil {
			return nil, fmt.Errorf("take commands of %s: %w", sessionID, err)
		}
		c.Kind, c.CreatedAt = CommandKind(kind), time.Unix(0, created).UTC()
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("take commands of %s: %w", sessionID, err)
	}
	// RETURNING gives no order.
	slices.SortFunc(out, func(a, b Command) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}
