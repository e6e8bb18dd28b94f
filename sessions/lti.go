package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ltiSchema holds what examtui keeps of LMS launches (docs/lms.md): one row per learner and
// placed exam (who, from which platform and course, which exam in which room, where their
// score goes and where the course roster is), and one row per score sent to a gradebook.
const ltiSchema = `
CREATE TABLE IF NOT EXISTS lti_launches (
	candidate_id TEXT NOT NULL,
	resource_link TEXT NOT NULL,
	issuer TEXT NOT NULL,
	client_id TEXT NOT NULL,
	deployment_id TEXT NOT NULL,
	subject TEXT NOT NULL,
	name TEXT NOT NULL,
	email TEXT NOT NULL,
	exam TEXT NOT NULL,
	room TEXT NOT NULL,
	context_id TEXT NOT NULL,
	line_item TEXT NOT NULL,
	memberships TEXT NOT NULL,
	created_ns BIGINT NOT NULL,
	updated_ns BIGINT NOT NULL,
	PRIMARY KEY (candidate_id, resource_link)
);
CREATE INDEX IF NOT EXISTS lti_launches_room ON lti_launches (room);
CREATE TABLE IF NOT EXISTS lti_scores (
	session_id TEXT NOT NULL,
	line_item TEXT NOT NULL,
	candidate_id TEXT NOT NULL,
	score_given DOUBLE PRECISION,
	score_maximum DOUBLE PRECISION,
	grading TEXT NOT NULL,
	status TEXT NOT NULL,
	attempts INTEGER NOT NULL,
	last_error TEXT NOT NULL,
	digest TEXT NOT NULL,
	updated_ns BIGINT NOT NULL,
	next_ns BIGINT NOT NULL,
	PRIMARY KEY (session_id, line_item)
);`

// migrateV12 adds lti_launches and lti_scores (same SQL on both engines).
func migrateV12(ctx context.Context, tx *sqlTx) error {
	_, err := tx.ExecContext(ctx, ltiSchema)
	return err
}

// LTILaunch is a learner's launch of a placed exam from an LMS.
type LTILaunch struct {
	CandidateID  string // "lti:" + the platform's short hash + ":" + Subject
	ResourceLink string
	Issuer       string
	ClientID     string
	DeploymentID string
	Subject      string
	Name         string
	Email        string
	Exam         string // the exam's spec name
	Room         string
	ContextID    string
	LineItem     string // where the score goes ("" when the placement has no gradebook column)
	Memberships  string // the course roster's NRPS URL
	Created      time.Time
	Updated      time.Time
}

// RecordLTILaunch stores l, or updates the stored launch of the same learner and placement
// (a relaunch keeps its room and first time).
func (s *Store) RecordLTILaunch(ctx context.Context, l LTILaunch) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if l.CandidateID == "" || l.ResourceLink == "" || l.Issuer == "" || l.Subject == "" || l.Room == "" {
		return fmt.Errorf("store an LTI launch: candidate, resource link, issuer, subject and room are required")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO lti_launches (candidate_id, resource_link, issuer, client_id, deployment_id,
		subject, name, email, exam, room, context_id, line_item, memberships, created_ns, updated_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (candidate_id, resource_link) DO UPDATE SET name = excluded.name, email = excluded.email,
			line_item = excluded.line_item, memberships = excluded.memberships, updated_ns = excluded.updated_ns`,
		l.CandidateID, l.ResourceLink, l.Issuer, l.ClientID, l.DeploymentID, l.Subject, l.Name, l.Email, l.Exam, l.Room,
		l.ContextID, l.LineItem, l.Memberships, l.Created.UnixNano(), l.Updated.UnixNano())
	if err != nil {
		return fmt.Errorf("store an LTI launch: %w", err)
	}
	return nil
}

const ltiLaunchColumns = `candidate_id, resource_link, issuer, client_id, deployment_id, subject, name, email, exam, room,
	context_id, line_item, memberships, created_ns, updated_ns`

func scanLTILaunch(r scanner) (LTILaunch, error) {
	var l LTILaunch
	var created, updated int64
	if err := r.Scan(&l.CandidateID, &l.ResourceLink, &l.Issuer, &l.ClientID, &l.DeploymentID, &l.Subject, &l.Name, &l.Email,
		&l.Exam, &l.Room, &l.ContextID, &l.LineItem, &l.Memberships, &created, &updated); err != nil {
		return LTILaunch{}, fmt.Errorf("read an LTI launch: %w", err)
	}
	l.Created, l.Updated = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	return l, nil
}

// ErrNoLTILaunch is a room or candidate with no LMS launch.
var ErrNoLTILaunch = errors.New("no LTI launch")

// LTILaunchOf returns the stored launch of candidate on resource link.
func (s *Store) LTILaunchOf(ctx context.Context, candidateID, resourceLink string) (LTILaunch, error) {
	if err := s.checkOpen(); err != nil {
		return LTILaunch{}, err
	}
	l, err := scanLTILaunch(s.db.QueryRowContext(ctx, `SELECT `+ltiLaunchColumns+` FROM lti_launches
		WHERE candidate_id = ? AND resource_link = ?`, candidateID, resourceLink))
	if errors.Is(err, sql.ErrNoRows) {
		return LTILaunch{}, ErrNoLTILaunch
	}
	return l, err
}

// LTILaunches returns the stored launches, newest first; a non-empty room or context narrows
// them to that room or course.
func (s *Store) LTILaunches(ctx context.Context, room, contextID string) ([]LTILaunch, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+ltiLaunchColumns+` FROM lti_launches
		WHERE (? = '' OR room = ?) AND (? = '' OR context_id = ?) ORDER BY updated_ns DESC, candidate_id`, room, room, contextID, contextID)
	if err != nil {
		return nil, fmt.Errorf("LTI launches: %w", err)
	}
	defer rows.Close()
	var out []LTILaunch
	for rows.Next() {
		l, err := scanLTILaunch(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// LTIScore is one score sent (or to be sent) to a gradebook column.
type LTIScore struct {
	SessionID    string
	LineItem     string
	CandidateID  string
	ScoreGiven   *float64 // nil while marking is open (Pending)
	ScoreMaximum *float64
	Grading      string // the AGS gradingProgress sent: FullyGraded or Pending
	Status       string // LTIScorePosted or LTIScoreFailed
	Attempts     int
	LastError    string
	Digest       string // the mark lock's digest the score came from ("" for Pending)
	Updated      time.Time
	NextAttempt  time.Time // when a failed post is tried again
}

// RecordLTIScore stores the outcome of posting sc (insert or update).
func (s *Store) RecordLTIScore(ctx context.Context, sc LTIScore) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO lti_scores (session_id, line_item, candidate_id, score_given, score_maximum,
		grading, status, attempts, last_error, digest, updated_ns, next_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id, line_item) DO UPDATE SET score_given = excluded.score_given, score_maximum = excluded.score_maximum,
			grading = excluded.grading, status = excluded.status, attempts = excluded.attempts, last_error = excluded.last_error,
			digest = excluded.digest, updated_ns = excluded.updated_ns, next_ns = excluded.next_ns`,
		sc.SessionID, sc.LineItem, sc.CandidateID, sc.ScoreGiven, sc.ScoreMaximum, sc.Grading, sc.Status, sc.Attempts, sc.LastError,
		sc.Digest, sc.Updated.UnixNano(), sc.NextAttempt.UnixNano())
	if err != nil {
		return fmt.Errorf("store an LTI score: %w", err)
	}
	return nil
}

// Statuses of an LTIScore.
const (
	LTIScorePosted = "posted" // the platform took the score
	LTIScoreFailed = "failed" // the last post failed; tried again after NextAttempt
)

const ltiScoreColumns = `lti_scores.session_id, lti_scores.line_item, lti_scores.candidate_id, lti_scores.score_given,
	lti_scores.score_maximum, lti_scores.grading, lti_scores.status, lti_scores.attempts, lti_scores.last_error,
	lti_scores.digest, lti_scores.updated_ns, lti_scores.next_ns`

// scanLTIScore reads ltiScoreColumns, then extra.
func scanLTIScore(r scanner, extra ...any) (LTIScore, error) {
	var sc LTIScore
	var given, max sql.NullFloat64
	var updated, next int64
	if err := r.Scan(append([]any{&sc.SessionID, &sc.LineItem, &sc.CandidateID, &given, &max, &sc.Grading, &sc.Status, &sc.Attempts,
		&sc.LastError, &sc.Digest, &updated, &next}, extra...)...); err != nil {
		return LTIScore{}, fmt.Errorf("read an LTI score: %w", err)
	}
	if given.Valid {
		sc.ScoreGiven = &given.Float64
	}
	if max.Valid {
		sc.ScoreMaximum = &max.Float64
	}
	sc.Updated, sc.NextAttempt = time.Unix(0, updated).UTC(), time.Unix(0, next).UTC()
	return sc, nil
}

// LTIScores returns the scores recorded; a non-empty session narrows them to it.
func (s *Store) LTIScores(ctx context.Context, sessionID string) ([]LTIScore, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+ltiScoreColumns+` FROM lti_scores WHERE (? = '' OR session_id = ?)
		ORDER BY session_id, line_item`, sessionID, sessionID)
	if err != nil {
		return nil, fmt.Errorf("LTI scores: %w", err)
	}
	defer rows.Close()
	var out []LTIScore
	for rows.Next() {
		sc, err := scanLTIScore(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, rows.Err()
}

// FailedLTIScore is a score whose last post to the gradebook failed, with the session it
// belongs to.
type FailedLTIScore struct {
	LTIScore
	Candidate string // the session's candidate name
	ExamID    string
}

// FailedLTIScores returns the scores whose last post failed, of exam examID's sessions (""
// every exam's), the next to be tried first: what the marking queue shows.
func (s *Store) FailedLTIScores(ctx context.Context, examID string) ([]FailedLTIScore, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+ltiScoreColumns+`, sessions.candidate, sessions.exam_id
		FROM lti_scores JOIN sessions ON sessions.id = lti_scores.session_id
		WHERE lti_scores.status = ? AND (? = '' OR sessions.exam_id = ?)
		ORDER BY lti_scores.next_ns, lti_scores.session_id, lti_scores.line_item`, LTIScoreFailed, examID, examID)
	if err != nil {
		return nil, fmt.Errorf("failed LTI scores: %w", err)
	}
	defer rows.Close()
	var out []FailedLTIScore
	for rows.Next() {
		var f FailedLTIScore
		if f.LTIScore, err = scanLTIScore(rows, &f.Candidate, &f.ExamID); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// FailedPassbacks counts the scores whose last post to a gradebook failed: what the control
// room shows.
func (s *Store) FailedPassbacks(ctx context.Context) (int, error) {
	if err := s.checkOpen(); err != nil {
		return 0, err
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM lti_scores WHERE status = ?`, LTIScoreFailed).Scan(&n); err != nil {
		return 0, fmt.Errorf("count failed LTI scores: %w", err)
	}
	return n, nil
}
