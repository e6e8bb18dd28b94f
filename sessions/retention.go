package sessions

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// RetentionPolicy is how long each kind of data is kept after its session ended; zero keeps
// that kind until it is deleted (docs/records.md).
type RetentionPolicy struct {
	// Recordings: the session's audio files go; the session keeps everything else.
	Recordings time.Duration
	// Events: the transcript and events, and the control room's commands, go; the session row
	// (candidate, exam, times) and its marks stay for the gradebook.
	Events time.Duration
	// Marks: marks, final marks and locks — and so the whole session (DeleteSession).
	Marks time.Duration
	// JoinCodes: join codes, counted from their expiry.
	JoinCodes time.Duration
	// Logs: lines of the log files older than this.
	Logs time.Duration
}

// Empty reports a policy that keeps everything.
func (p RetentionPolicy) Empty() bool { return p == RetentionPolicy{} }

// PurgeRequest applies a policy (Purge).
type PurgeRequest struct {
	Policy RetentionPolicy
	// Now is the time the ages count back from (zero: the store's clock).
	Now time.Time
	// DryRun says what would go and removes nothing.
	DryRun bool
	// DataDir and Logs are as in DeleteRequest.
	DataDir string
	Logs    []string
}

// Purged is what a purge removed (or, dry, would remove).
type Purged struct {
	DryRun bool `json:"dryRun"`
	// Sessions went whole (marks retention); Events lost their transcript and events;
	// Recordings lost their audio. Session ids only.
	Sessions   []string `json:"sessions"`
	Events     []string `json:"events"`
	Recordings []string `json:"recordings"`
	JoinCodes  int64    `json:"joinCodes"`
	LogLines   int      `json:"logLines"`
}

// Empty reports a purge that found nothing to remove.
func (p Purged) Empty() bool {
	return len(p.Sessions)+len(p.Events)+len(p.Recordings) == 0 && p.JoinCodes == 0 && p.LogLines == 0
}

// sessionAge is when a session's retention clock starts: its end, else its last event, else
// its start.
const sessionAge = `COALESCE(ended_ns, last_event_ns, started_ns)`

// Purge applies req.Policy: each kind of data older than its age goes, the longest-kept first
// (a session past its marks' age goes whole, and is not then counted again), each session's
// purge is appended to the access log, and the store's log says what went. A session running
// in any process is skipped until the next purge.
func (s *Store) Purge(ctx context.Context, req PurgeRequest) (Purged, error) {
	out := Purged{DryRun: req.DryRun}
	if err := s.checkOpen(); err != nil {
		return out, err
	}
	now := req.Now
	if now.IsZero() {
		now = s.cfg.now()
	}
	p := req.Policy
	before := func(d time.Duration) int64 { return now.Add(-d).UnixNano() }
	skip := map[string]bool{}
	if p.Marks > 0 {
		ids, err := s.idsWhere(ctx, sessionAge+` < ?`, before(p.Marks))
		if err != nil {
			return out, err
		}
		out.Sessions = s.purgeEach(ids, skip, req.DryRun, "session", func(id string) error {
			del, err := s.DeleteSession(ctx, id, DeleteRequest{Force: true, Reason: "retention: marks kept " + age(p.Marks),
				DataDir: req.DataDir, Logs: req.Logs, By: "retention"})
			if err != nil {
				return err
			}
			// What went with the session counts too, so a dry run's figures are the purge's.
			out.JoinCodes += del.Rows["join_codes"]
			out.LogLines += del.LogLines
			return nil
		})
		for _, id := range out.Sessions {
			skip[id] = true
		}
	}
	if p.Events > 0 {
		ids, err := s.idsWhere(ctx, sessionAge+` < ? AND (event_count > 0 OR EXISTS (SELECT 1 FROM commands c WHERE c.session_id = sessions.id))`, before(p.Events))
		if err != nil {
			return out, err
		}
		out.Events = s.purgeEach(ids, skip, req.DryRun, "events", func(id string) error {
			return s.purgeEvents(ctx, id, "retention: events kept "+age(p.Events))
		})
	}
	if p.Recordings > 0 {
		ids, err := s.idsWhere(ctx, sessionAge+` < ? AND recordings <> '[]'`, before(p.Recordings))
		if err != nil {
			return out, err
		}
		out.Recordings = s.purgeEach(ids, skip, req.DryRun, "recordings", func(id string) error {
			return s.purgeRecordings(ctx, id, req.DataDir, "retention: recordings kept "+age(p.Recordings))
		})
	}
	if p.JoinCodes > 0 {
		n, err := s.purgeJoinCodes(ctx, before(p.JoinCodes), req.DryRun)
		if err != nil {
			return out, err
		}
		out.JoinCodes += n
	}
	if p.Logs > 0 {
		n, err := purgeLogLines(req.Logs, now.Add(-p.Logs), req.DryRun)
		if err != nil {
			return out, err
		}
		out.LogLines += n
	}
	if !req.DryRun && !out.Empty() {
		s.log.Info("purged by the retention policy", "sessions", len(out.Sessions), "events", len(out.Events),
			"recordings", len(out.Recordings), "joinCodes", out.JoinCodes, "logLines", out.LogLines)
	}
	return out, nil
}

// purgeEach applies purge to each session of ids not in skip (none when dry) and returns
// those it purged (or would); a session that fails is logged and left for the next purge.
func (s *Store) purgeEach(ids []string, skip map[string]bool, dry bool, what string, purge func(id string) error) []string {
	var done []string
	for _, id := range ids {
		if skip[id] {
			continue
		}
		if !dry {
			if err := purge(id); err != nil {
				s.log.Warn("purge: "+what+" not removed", "session", id, "err", err)
				continue
			}
		}
		done = append(done, id)
	}
	return done
}

// age prints a retention age in days.
func age(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

// idsWhere lists the ids of the sessions matching cond, oldest first.
func (s *Store) idsWhere(ctx context.Context, cond string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM sessions WHERE `+cond+` ORDER BY `+sessionAge, args...)
	if err != nil {
		return nil, fmt.Errorf("purge: %w", err)
	}
	defer rows.Close()
	return scanIDs(rows)
}

// purgeEvents removes a session's events and commands, keeping its row and marks, under its
// lease (a running session is not touched), and logs the purge in the access log.
func (s *Store) purgeEvents(ctx context.Context, id, why string) error {
	return s.underLease(ctx, id, func(tx *sqlTx) error {
		for _, q := range []string{`DELETE FROM events WHERE session_id = ?`, `DELETE FROM commands WHERE session_id = ?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		// The aggregates stay (the listing's figures); the row says the events went.
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET event_count = 0 WHERE id = ?`, id)
		return err
	}, why)
}

// purgeRecordings removes a session's audio files and their listing.
func (s *Store) purgeRecordings(ctx context.Context, id, dataDir, why string) error {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	err = s.underLease(ctx, id, func(tx *sqlTx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET recordings = '[]' WHERE id = ?`, id)
		return err
	}, why)
	if err != nil {
		return err
	}
	_, err = removeSessionFiles(id, sess.Recordings, s.dir, dataDir)
	return err
}

// underLease runs change in a transaction while holding session id's lease, with an access
// log entry (AccessPurge, by "retention") in the same transaction.
func (s *Store) underLease(ctx context.Context, id string, change func(tx *sqlTx) error, why string) error {
	l, err := s.takeLease(ctx, id)
	if err != nil {
		return err
	}
	defer func() { _ = l.release() }()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := change(tx); err != nil {
		return err
	}
	e := AccessEntry{Who: "retention", Action: AccessPurge, SessionID: id, Detail: why, At: s.cfg.now(), From: s.origin(ctx)}
	if err := appendAccess(ctx, tx, &e); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.checkpoint(ctx)
	return nil
}

// purgeJoinCodes removes (or, dry, counts) join codes that expired before cutoff (Unix ns).
func (s *Store) purgeJoinCodes(ctx context.Context, cutoff int64, dry bool) (int64, error) {
	if dry {
		var n int64
		err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM join_codes WHERE expires_ns < ?`, cutoff).Scan(&n)
		return n, err
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM join_codes WHERE expires_ns < ?`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("purge join codes: %w", err)
	}
	return res.RowsAffected()
}

// purgeLogLines removes (or, dry, counts) the log lines written before cutoff: lines whose
// time= attribute (slog's text format) is older. Lines without one stay.
func purgeLogLines(logs []string, cutoff time.Time, dry bool) (int, error) {
	old := func(line []byte) bool {
		rest, ok := strings.CutPrefix(string(line), "time=")
		if !ok {
			return false
		}
		stamp, _, _ := strings.Cut(rest, " ")
		t, err := time.Parse(time.RFC3339Nano, strings.Trim(stamp, `"`))
		return err == nil && t.Before(cutoff)
	}
	n := 0
	for _, path := range logs {
		if dry {
			data, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			for _, l := range strings.Split(string(data), "\n") {
				if old([]byte(l)) {
					n++
				}
			}
			continue
		}
		k, err := rewriteLog(path, func(line []byte) bool { return !old(line) })
		if err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}

// PurgeText says what a purge removed (or would remove), for people.
func PurgeText(p Purged) string {
	verb := "Purged"
	if p.DryRun {
		verb = "Would purge"
	}
	if p.Empty() {
		return "Nothing to purge.\n"
	}
	var b strings.Builder
	line := func(what string, ids []string) {
		if len(ids) > 0 {
			fmt.Fprintf(&b, "%s %s: %s\n", verb, what, strings.Join(ids, " "))
		}
	}
	line("whole sessions (past their marks' age)", p.Sessions)
	line("transcripts and events of", p.Events)
	line("recordings of", p.Recordings)
	if p.JoinCodes > 0 {
		fmt.Fprintf(&b, "%s %d join codes\n", verb, p.JoinCodes)
	}
	if p.LogLines > 0 {
		fmt.Fprintf(&b, "%s %d log lines\n", verb, p.LogLines)
	}
	return b.String()
}
