package sessions

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
	"github.com/examtui/examtui/spec"
)

// ScriptCandidatePrefix begins the candidate name of a session a candidate script played
// (examtui test, rehearsals): such a session is a test of the exam, not a candidate's, and
// marking leaves it out of its queue, the gradebook and the count awaiting marks unless asked.
const ScriptCandidatePrefix = "script:"

// IsRehearsal reports whether a session was played by a candidate script.
func (s *Session) IsRehearsal() bool { return strings.HasPrefix(s.Candidate, ScriptCandidatePrefix) }

// Meta describes a session being created.
type Meta struct {
	ID        string     // optional; a random 16-hex-digit id by default
	Exam      *spec.Exam // required: the compiled exam, stored whole
	ExamID    string     // default Exam.ID
	Title     string     // default Exam.Title
	Candidate string
	// CandidateID is the candidate's id in the institution's roster or LMS ("" when unknown).
	CandidateID string
	Examiner    string              // the examiner implementation or person ("offline", a model name...)
	Input       runtime.InputSource // how the candidate's answers reach the exam
	SpecPath    string
	Recordings  []string
	StartedAt   time.Time // default now
}

// Session is a stored session's metadata and aggregates.
type Session struct {
	ID            string
	ExamID        string
	Title         string
	Candidate     string
	CandidateID   string
	Examiner      string
	Input         runtime.InputSource
	StartedAt     time.Time
	EndedAt       time.Time // zero until the exam ended
	State         runtime.ExamState
	Interrupted   bool // stopped without ending (crash or quit); resumable
	SpecPath      string
	Recordings    []string
	OwnerPID      int
	EventCount    int64
	LastEventAt   time.Time // zero before the first event
	EvidenceCount int
	Coverage      float64 // mean evidence coverage over nodes with targets, 0..1
	// Usage is what the exam's examiner calls consumed, per model (priced by Usage.Cost).
	Usage usage.Totals
	// ExamJSON is the compiled exam as it was when the session started; filled by Get only.
	ExamJSON json.RawMessage
}

// Status is a session's state as the lists show it.
type Status string

// Statuses.
const (
	StatusRunning     Status = "running"
	StatusInterrupted Status = "interrupted"
	StatusCompleted   Status = "completed"
	StatusAborted     Status = "aborted"
	StatusExpired     Status = "expired"
	StatusEnded       Status = "ended"
)

func (s Status) String() string { return string(s) }

// Status says whether the session runs, ended (and how) or was interrupted.
func (s *Session) Status() Status {
	switch {
	case !s.EndedAt.IsZero():
		switch s.State {
		case runtime.StateCompleted:
			return StatusCompleted
		case runtime.StateAborted:
			return StatusAborted
		case runtime.StateExpired:
			return StatusExpired
		}
		return StatusEnded
	case s.Interrupted:
		return StatusInterrupted
	}
	return StatusRunning
}

// Duration is from start to end, or to the last event while running or interrupted.
func (s *Session) Duration() time.Duration {
	end := s.EndedAt
	if end.IsZero() {
		end = s.LastEventAt
	}
	if end.IsZero() || end.Before(s.StartedAt) {
		return 0
	}
	return end.Sub(s.StartedAt)
}

// Exam decodes the stored compiled exam (Get fills ExamJSON; List does not).
func (s *Session) Exam() (*spec.Exam, error) {
	if len(s.ExamJSON) == 0 {
		return nil, fmt.Errorf("session %s: exam not loaded (use Store.Get)", s.ID)
	}
	var e spec.Exam
	if err := json.Unmarshal(s.ExamJSON, &e); err != nil {
		return nil, fmt.Errorf("session %s: decode exam: %w", s.ID, err)
	}
	return &e, nil
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{3,63}$`)

func newID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// Create records a new session and makes this process its owner until the store is closed
// or its journal closes.
func (s *Store) Create(ctx context.Context, m Meta) (*Session, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if m.Exam == nil {
		return nil, fmt.Errorf("%w: no compiled exam", ErrInvalidMeta)
	}
	if m.ID == "" {
		id, err := newID()
		if err != nil {
			return nil, err
		}
		m.ID = id
	} else if !idPattern.MatchString(m.ID) {
		return nil, fmt.Errorf("%w: id %q (want 4-64 of a-z, 0-9, -)", ErrInvalidMeta, m.ID)
	}
	if m.ExamID == "" {
		m.ExamID = m.Exam.ID
	}
	if m.Title == "" {
		m.Title = m.Exam.Title
	}
	if m.ExamID == "" {
		return nil, fmt.Errorf("%w: no exam id", ErrInvalidMeta)
	}
	if m.Input != "" && !m.Input.Valid() {
		return nil, fmt.Errorf("%w: input %q", ErrInvalidMeta, m.Input)
	}
	if m.StartedAt.IsZero() {
		m.StartedAt = s.cfg.now()
	}
	// Metadata is typed by people and wired from flags: mask anything credential-shaped there too.
	m.Title, m.Candidate, m.Examiner, m.SpecPath = textsafe.MaskSecrets(m.Title), textsafe.MaskSecrets(m.Candidate), textsafe.MaskSecrets(m.Examiner), textsafe.MaskSecrets(m.SpecPath)
	if m.Recordings == nil {
		m.Recordings = []string{}
	}
	examJSON, err := json.Marshal(m.Exam)
	if err != nil {
		return nil, fmt.Errorf("encode exam: %w", err)
	}
	// The compiled exam carries the author's texts (title, prompts) and is kept with the
	// session for years: a credential pasted into one is masked like one in an event.
	examJSON, _ = textsafe.MaskSecretsJSON(examJSON)
	recJSON, err := json.Marshal(m.Recordings)
	if err != nil {
		return nil, fmt.Errorf("encode recordings: %w", err)
	}
	// The owner lock comes first: a concurrent Open must never see the row without a live owner.
	lock, err := s.acquireLease(ctx, m.ID)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", m.ID, err)
	}
	if err := s.insertSession(ctx, m, examJSON, recJSON); err != nil {
		_ = lock.release()
		return nil, fmt.Errorf("create session %s: %w", m.ID, err)
	}
	s.mu.Lock()
	s.owned[m.ID] = lock
	s.mu.Unlock()
	return &Session{
		ID: m.ID, ExamID: m.ExamID, Title: m.Title, Candidate: m.Candidate, Examiner: m.Examiner,
		Input: m.Input, StartedAt: m.StartedAt.UTC(), State: runtime.StateCreated, SpecPath: m.SpecPath,
		Recordings: m.Recordings, OwnerPID: os.Getpid(), ExamJSON: examJSON,
	}, nil
}

func (s *Store) insertSession(ctx context.Context, m Meta, examJSON, recJSON []byte) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	sum, err := putExam(ctx, tx, examJSON)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions (id, exam_id, title, candidate, examiner, input,
		started_ns, state, exam_sha256, spec_path, recordings, owner_pid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.ExamID, m.Title, m.Candidate, m.Examiner, string(m.Input), m.StartedAt.UnixNano(),
		string(runtime.StateCreated), sum, m.SpecPath, string(recJSON), os.Getpid())
	if err != nil {
		return err
	}
	return tx.Commit()
}

const listColumns = `id, exam_id, title, candidate, examiner, input, started_ns, ended_ns, state, interrupted,
	spec_path, recordings, owner_pid, event_count, last_event_ns, evidence_count, coverage, usage, candidate_id`

func scanSession(r scanner, extra ...any) (*Session, error) {
	var (
		ss                            Session
		input, state, recs, usageText string
		startedNs                     int64
		endedNs, lastNs               sql.NullInt64
		interrupted                   int
	)
	dest := []any{&ss.ID, &ss.ExamID, &ss.Title, &ss.Candidate, &ss.Examiner, &input, &startedNs, &endedNs,
		&state, &interrupted, &ss.SpecPath, &recs, &ss.OwnerPID, &ss.EventCount, &lastNs, &ss.EvidenceCount, &ss.Coverage, &usageText, &ss.CandidateID}
	if err := r.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	ss.Input = runtime.InputSource(input)
	ss.State = runtime.ExamState(state)
	ss.Interrupted = interrupted != 0
	ss.StartedAt = time.Unix(0, startedNs).UTC()
	if endedNs.Valid {
		ss.EndedAt = time.Unix(0, endedNs.Int64).UTC()
	}
	if lastNs.Valid {
		ss.LastEventAt = time.Unix(0, lastNs.Int64).UTC()
	}
	u, err := unmarshalUsage(usageText)
	if err != nil {
		return nil, fmt.Errorf("session %s: usage: %w", ss.ID, err)
	}
	ss.Usage = u
	if recs == "[]" { // most sessions: skip the decoder when listing thousands
		ss.Recordings = []string{}
	} else if err := json.Unmarshal([]byte(recs), &ss.Recordings); err != nil {
		return nil, fmt.Errorf("session %s: recordings: %w", ss.ID, err)
	}
	return &ss, nil
}

// scanIDs reads the one id column of every row (Resolve, recovery's look-ups).
func scanIDs(rows rowSet) ([]string, error) {
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// scanSessions reads every row of a query for listColumns (List, Live).
func scanSessions(rows rowSet) ([]*Session, error) {
	var out []*Session
	for rows.Next() {
		ss, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, ss)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// List returns every session, newest first, without their exams or events.
func (s *Store) List(ctx context.Context) ([]*Session, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, closeRows, err := s.query(ctx, `SELECT `+listColumns+` FROM sessions ORDER BY started_ns DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer closeRows()
	out, err := scanSessions(rows)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// Get returns one session by its exact id, with its compiled exam.
func (s *Store) Get(ctx context.Context, id string) (*Session, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	var examJSON string
	row := s.db.QueryRowContext(ctx, `SELECT `+listColumns+`, exams.exam_json FROM sessions
		JOIN exams ON exams.sha256 = sessions.exam_sha256 WHERE id = ?`, id)
	ss, err := scanSession(row, &examJSON)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("get session %s: %w", id, err)
	}
	ss.ExamJSON = json.RawMessage(examJSON)
	return ss, nil
}

// Resolve turns an id or an unambiguous id prefix into the full id.
func (s *Store) Resolve(ctx context.Context, idOrPrefix string) (string, error) {
	if err := s.checkOpen(); err != nil {
		return "", err
	}
	p := strings.ToLower(strings.TrimSpace(idOrPrefix))
	if p == "" || strings.ContainsAny(p, `%_\`) {
		return "", fmt.Errorf("%w: %q", ErrNotFound, idOrPrefix)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM sessions WHERE id = ? OR substr(id, 1, ?) = ? ORDER BY id LIMIT 6`, p, len(p), p)
	if err != nil {
		return "", fmt.Errorf("resolve %q: %w", idOrPrefix, err)
	}
	defer rows.Close()
	ids, err := scanIDs(rows)
	if err != nil {
		return "", fmt.Errorf("resolve %q: %w", idOrPrefix, err)
	}
	if slices.Contains(ids, p) {
		return p, nil // an exact id wins over the longer ids it is a prefix of
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("%w: %q", ErrNotFound, idOrPrefix)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%w: %q matches %s", ErrAmbiguousID, idOrPrefix, strings.Join(ids, ", "))
}

// SetRecordings records the paths of the session's audio recordings.
func (s *Store) SetRecordings(ctx context.Context, id string, paths []string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if paths == nil {
		paths = []string{}
	}
	b, err := json.Marshal(paths)
	if err != nil {
		return fmt.Errorf("encode recordings: %w", err)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE sessions SET recordings = ? WHERE id = ?`, string(b), id)
	if err != nil {
		return fmt.Errorf("set recordings of %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return nil
}

// MarkStarted records when the exam itself started and, if none was given at creation, who
// the candidate is. A room exam's session is created when its bot joins and may wait long for
// the candidate; its duration counts from the candidate's arrival, and its candidate is the
// participant who came. Only a session without events can be marked: once the exam runs,
// its start is in its events.
func (s *Store) MarkStarted(ctx context.Context, id string, at time.Time, candidate string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if at.IsZero() {
		return fmt.Errorf("%w: zero start time", ErrInvalidMeta)
	}
	// The identity comes from the room (a peer's token): one clean line.
	candidate = textsafe.MaskSecrets(strings.TrimSpace(textsafe.Line(candidate)))
	res, err := s.db.ExecContext(ctx, `UPDATE sessions SET started_ns = ?,
		candidate = CASE WHEN candidate = '' THEN ? ELSE candidate END
		WHERE id = ? AND event_count = 0`, at.UnixNano(), candidate, id)
	if err != nil {
		return fmt.Errorf("mark %s started: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.Get(ctx, id); err != nil {
			return err
		}
		return fmt.Errorf("%w: session %s already has events", ErrInvalidMeta, id)
	}
	return nil
}

// removeLockFile removes a deleted session's SQLite lock file (PostgreSQL leases leave nothing).
func (s *Store) removeLockFile(id string) {
	if s.engine != EngineSQLite {
		return
	}
	if err := os.Remove(s.lockPath(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.log.Warn("remove lock file", "session", id, "err", err)
	}
}
