// Package gradepass sends marks to the learning platform a candidate launched their exam from
// (LTI Assignment and Grade Services, docs/lms.md): a locked mark that still verifies becomes a
// FullyGraded score, a finished exam whose marking is open a Pending one, and a lock the
// session no longer matches nothing at all. Every post is recorded with its outcome, so a
// failure shows in the marking queue and is tried again after a back-off.
package gradepass

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/sessions"
)

// Actions of an Outcome.
const (
	Posted    = "posted"     // the score reached the gradebook
	WouldPost = "would post" // a dry run's post
	Unchanged = "unchanged"  // the gradebook has this score already
	Waiting   = "waiting"    // a failed post whose back-off has not passed
	Failed    = "failed"     // the post failed (recorded; tried again later)
	Refused   = "refused"    // locked, but the session no longer matches its lock: nothing sent
	NotLTI    = "not from an LMS"
)

// Outcome is what happened to one session.
type Outcome struct {
	SessionID   string
	Candidate   string
	CandidateID string
	LineItem    string
	Grading     string // FullyGraded or Pending
	Given, Max  *float64
	Action      string
	Reason      string
}

// Backoff is the wait before a failed post is tried again: one minute, doubling per failure,
// at most an hour.
func Backoff(attempts int) time.Duration {
	d := time.Minute
	for i := 1; i < attempts && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

// Publisher posts an exam's marks.
type Publisher struct {
	Store     *sessions.Store
	Platforms *lti.Registry
	Services  *lti.Services
	Now       func() time.Time
	Logger    *slog.Logger
}

// ErrRefused is a run that left sessions out because their marks no longer match the lock.
var ErrRefused = errors.New("locked marks changed since the lock")

// Publish sends what is ready for exam examID; dryRun only says what it would send. It returns
// every session's outcome, and ErrRefused (wrapped, naming them) when a lock failed to verify.
func (p *Publisher) Publish(ctx context.Context, examID string, dryRun bool) ([]Outcome, error) {
	// Every finished session, changed locks included: those are refused here, by name.
	rows, _, err := marking.Gradebook(ctx, p.Store, examID, marking.IncludeUnverified())
	if err != nil {
		return nil, err
	}
	var out []Outcome
	var refused []string
	for _, row := range rows {
		o, err := p.one(ctx, row, dryRun)
		if err != nil {
			return out, err
		}
		if o.Action == Refused {
			refused = append(refused, o.SessionID)
		}
		out = append(out, o)
	}
	if len(refused) > 0 {
		return out, fmt.Errorf("%w: %s (marks verify names what changed); nothing was sent for them", ErrRefused, strings.Join(refused, ", "))
	}
	return out, nil
}

// specName is the name a launch placed: the session's spec file without its directory and
// extension (the demo is "demo").
func specName(path string) string {
	if path == "" || path == app.DemoSpec {
		return app.DemoSpec
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

func (p *Publisher) one(ctx context.Context, row marking.GradeRow, dryRun bool) (Outcome, error) {
	o := Outcome{SessionID: row.SessionID, Candidate: row.Candidate}
	sess, err := p.Store.Get(ctx, row.SessionID)
	if err != nil {
		return o, err
	}
	o.CandidateID = sess.CandidateID
	launch, ok, err := p.launchOf(ctx, sess)
	if err != nil {
		return o, err
	}
	if !ok {
		o.Action, o.Reason = NotLTI, "the candidate did not launch this exam from a course with a gradebook column"
		return o, nil
	}
	o.LineItem = launch.LineItem
	digest := ""
	switch {
	case row.LockedAt != nil:
		res, err := marking.LockedResult(ctx, p.Store, row.SessionID)
		switch {
		case errors.Is(err, marking.ErrUnverified), errors.Is(err, marking.ErrNoFinalLevel):
			o.Action, o.Reason = Refused, err.Error()
			return o, nil
		case err != nil:
			return o, err
		}
		given, max := float64(*res.Total), float64(res.MaxTotal)
		o.Grading, o.Given, o.Max, digest = lti.GradingFully, &given, &max, res.LockDigest
	default:
		o.Grading = lti.GradingPending
	}
	prev, err := p.previous(ctx, row.SessionID, launch.LineItem)
	if err != nil {
		return o, err
	}
	now := p.Now()
	switch {
	case prev != nil && prev.Status == sessions.LTIScorePosted && prev.Grading == o.Grading && prev.Digest == digest:
		o.Action = Unchanged
		return o, nil
	case prev != nil && prev.Status == sessions.LTIScoreFailed && now.Before(prev.NextAttempt):
		o.Action, o.Reason = Waiting, fmt.Sprintf("failed %d time(s) (%s); next try after %s", prev.Attempts, prev.LastError, prev.NextAttempt.Format(time.RFC3339))
		return o, nil
	case dryRun:
		o.Action = WouldPost
		return o, nil
	}
	plat, err := p.Platforms.Find(launch.Issuer, launch.ClientID)
	if err != nil {
		return o, fmt.Errorf("session %s: %w", row.SessionID, err)
	}
	sc := lti.Score{UserID: launch.Subject, ScoreGiven: o.Given, ScoreMaximum: o.Max, ActivityProgress: lti.ActivityCompleted,
		GradingProgress: o.Grading, Timestamp: now.UTC().Format(time.RFC3339Nano)}
	rec := sessions.LTIScore{SessionID: row.SessionID, LineItem: launch.LineItem, CandidateID: sess.CandidateID, ScoreGiven: o.Given,
		ScoreMaximum: o.Max, Grading: o.Grading, Digest: digest, Updated: now, Attempts: 1, Status: sessions.LTIScorePosted}
	if prev != nil {
		rec.Attempts = prev.Attempts + 1
	}
	if err := p.Services.PostScore(ctx, plat, launch.LineItem, sc); err != nil {
		rec.Status, rec.LastError, rec.NextAttempt = sessions.LTIScoreFailed, err.Error(), now.Add(Backoff(rec.Attempts))
		o.Action, o.Reason = Failed, err.Error()
		p.Logger.Warn("grade passback failed", "session", row.SessionID, "attempts", rec.Attempts, "err", err)
	} else {
		o.Action = Posted
		rec.Attempts = 0
		p.Logger.Info("grade passback", "session", row.SessionID, "grading", o.Grading)
	}
	if err := p.Store.RecordLTIScore(ctx, rec); err != nil {
		return o, err
	}
	return o, nil
}

// launchOf finds the launch a session came from: the candidate's newest launch of this exam
// from a placement with a gradebook column.
func (p *Publisher) launchOf(ctx context.Context, sess *sessions.Session) (sessions.LTILaunch, bool, error) {
	if !strings.HasPrefix(sess.CandidateID, "lti:") {
		return sessions.LTILaunch{}, false, nil
	}
	all, err := p.Store.LTILaunches(ctx, "", "")
	if err != nil {
		return sessions.LTILaunch{}, false, err
	}
	for _, l := range all { // newest first
		if l.CandidateID == sess.CandidateID && l.Exam == specName(sess.SpecPath) && l.LineItem != "" {
			return l, true, nil
		}
	}
	return sessions.LTILaunch{}, false, nil
}

func (p *Publisher) previous(ctx context.Context, sessionID, lineItem string) (*sessions.LTIScore, error) {
	scores, err := p.Store.LTIScores(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	for i := range scores {
		if scores[i].LineItem == lineItem {
			return &scores[i], nil
		}
	}
	return nil, nil
}
