package gradepass_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to tamper with a PostgreSQL store
	_ "modernc.org/sqlite"             // the "sqlite" driver, to tamper with a SQLite store

	"github.com/examtui/examtui/cmd/examtui/internal/gradepass"
	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/cmd/examtui/internal/lti/ltitest"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// record stores the example rehearsal as a finished session of candidateID.
func record(t *testing.T, st *sessions.Store, name, candidateID string, after time.Duration) string {
	t.Helper()
	start := headless.DefaultStart.Add(after)
	script, exam := runtimetest.Rehearsal(t)
	sess, err := st.Create(t.Context(), sessions.Meta{Exam: exam, Candidate: name, Examiner: "offline",
		Input: runtime.SourceRoom, StartedAt: start, SpecPath: "/srv/exams/hospitality.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	j, err := st.Journal(t.Context(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := headless.Run(t.Context(), script, headless.Options{Sink: j, SessionID: sess.ID, Start: start}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if candidateID != "" {
		if err := st.PutCandidates(t.Context(), []sessions.Candidate{{CandidateID: candidateID, Name: name}}); err != nil {
			t.Fatal(err)
		}
		if err := st.AttachCandidate(t.Context(), sess.ID, candidateID); err != nil {
			t.Fatal(err)
		}
	}
	return sess.ID
}

// TestPublish: a locked, verified mark is posted FullyGraded with the total; a finished
// session with marking open is posted Pending; a session from no LMS is left alone; a second
// run posts nothing new; a mark changed after the lock is refused and nothing is sent for it;
// a post the platform refuses is recorded, waits its back-off, and is tried again.
func TestPublish(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, target string) {
		ctx := context.Background()
		st, err := sessions.OpenURL(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		plat := ltitest.Start(t)
		plat.AddLink(ltitest.Link{ID: "rl-exam", Title: "Oral"}, 12)
		keys, err := lti.OpenKeys(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_ = json.NewEncoder(w).Encode(keys.Public())
		}))
		defer jwks.Close()
		plat.ToolJWKS = jwks.URL
		reg, err := lti.NewRegistry([]lti.Platform{plat.Registration()})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
		pub := &gradepass.Publisher{Store: st, Platforms: reg, Services: lti.NewServices(keys, nil, nil), Now: func() time.Time { return now },
			Logger: slog.New(slog.DiscardHandler)}
		launch := func(cid, sub string) {
			t.Helper()
			err := st.RecordLTILaunch(ctx, sessions.LTILaunch{CandidateID: cid, ResourceLink: "rl-exam", Issuer: plat.Issuer, ClientID: plat.ClientID,
				DeploymentID: plat.DeploymentID, Subject: sub, Exam: "hospitality", Room: "lti-" + sub, LineItem: plat.LineItemURL("li-rl-exam"),
				Created: now, Updated: now})
			if err != nil {
				t.Fatal(err)
			}
		}
		launch("lti:x:learner-7", "learner-7")
		launch("lti:x:ghost", "ghost") // not in the course: the platform refuses its scores
		locked := record(t, st, "Ada", "lti:x:learner-7", 0)
		open := record(t, st, "Ada", "lti:x:learner-7", time.Hour)
		local := record(t, st, "Local", "", 2*time.Hour)
		ghost := record(t, st, "Ghost", "lti:x:ghost", 3*time.Hour)
		at := now.Add(-time.Hour)
		for _, c := range []struct{ crit, level string }{{"options", "analysis"}, {"clientele", "description"}, {"resources", "evaluation"}, {"communication", "none"}} {
			if _, err := marking.SetMark(ctx, st, marking.Entry{SessionID: locked, Criterion: c.crit, Level: c.level, Justification: "heard"}, at); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := marking.Lock(ctx, st, locked, "", at); err != nil {
			t.Fatal(err)
		}
		rows, _, err := marking.Gradebook(ctx, st, "hospitality-oral-b2", marking.IncludeUnverified())
		if err != nil || len(rows) != 4 {
			t.Fatalf("gradebook %v %v", rows, err)
		}
		want := map[string]float64{}
		for _, r := range rows {
			if r.Total != nil {
				want[r.SessionID] = float64(*r.Total)
			}
		}
		outcomes := func() map[string]gradepass.Outcome {
			t.Helper()
			out, err := pub.Publish(ctx, "hospitality-oral-b2", false)
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]gradepass.Outcome{}
			for _, o := range out {
				m[o.SessionID] = o
			}
			return m
		}
		got := outcomes()
		if o := got[locked]; o.Action != gradepass.Posted || o.Grading != lti.GradingFully || *o.Given != want[locked] || *o.Max != 12 {
			t.Fatalf("locked: %+v", o)
		}
		if o := got[open]; o.Action != gradepass.Posted || o.Grading != lti.GradingPending || o.Given != nil {
			t.Fatalf("open: %+v", o)
		}
		if o := got[local]; o.Action != gradepass.NotLTI {
			t.Fatalf("local: %+v", o)
		}
		if o := got[ghost]; o.Action != gradepass.Failed {
			t.Fatalf("ghost: %+v", o)
		}
		scores := plat.Scores()
		if len(scores) != 2 || scores[0].Score.UserID != "learner-7" || *scores[0].Score.ScoreGiven != want[locked] ||
			scores[0].Score.GradingProgress != "FullyGraded" || scores[1].Score.GradingProgress != "Pending" || scores[1].Score.ScoreGiven != nil {
			t.Fatalf("the platform holds %+v", scores)
		}
		// Again: nothing new; the failed one waits its back-off.
		got = outcomes()
		if got[locked].Action != gradepass.Unchanged || got[open].Action != gradepass.Unchanged || got[ghost].Action != gradepass.Waiting {
			t.Fatalf("second run: %+v", got)
		}
		now = now.Add(gradepass.Backoff(1) + time.Second)
		if got = outcomes(); got[ghost].Action != gradepass.Failed {
			t.Fatalf("after the back-off: %+v", got[ghost])
		}
		if rec, _ := st.LTIScores(ctx, ghost); len(rec) != 1 || rec[0].Attempts != 2 || rec[0].Status != sessions.LTIScoreFailed || rec[0].LastError == "" {
			t.Fatalf("the failure's record: %+v", rec)
		}
		// The failure is what the marking queue and the control room read: whose, why, when next.
		failed, err := st.FailedLTIScores(ctx, "hospitality-oral-b2")
		if err != nil || len(failed) != 1 || failed[0].SessionID != ghost || failed[0].Candidate != "Ghost" || failed[0].Attempts != 2 ||
			!strings.Contains(failed[0].LastError, "400") || !failed[0].NextAttempt.Equal(now.Add(gradepass.Backoff(2))) {
			t.Fatalf("failed scores of the exam: %+v %v", failed, err)
		}
		if other, err := st.FailedLTIScores(ctx, "another-exam"); err != nil || len(other) != 0 {
			t.Fatalf("failed scores of another exam: %+v %v", other, err)
		}
		if n, err := st.FailedPassbacks(ctx); err != nil || n != 1 {
			t.Fatalf("failed passbacks %d %v", n, err)
		}
		if len(plat.Scores()) != 2 {
			t.Fatalf("a repeated run posted again: %+v", plat.Scores())
		}
		// A mark changed in the database after the lock (the store refuses; someone with
		// database access goes around it): refused, named, nothing sent.
		driver, dsn := "pgx", target
		if st.Engine() == sessions.EngineSQLite {
			driver, dsn = "sqlite", filepath.Join(target, sessions.DBFile)
		}
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if res, err := db.ExecContext(ctx, `UPDATE marks SET level = 'analysis' WHERE criterion = 'communication'`); err != nil {
			t.Fatal(err)
		} else if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("tampered with %d marks, want 1", n)
		}
		out, err := pub.Publish(ctx, "hospitality-oral-b2", false)
		if !errors.Is(err, gradepass.ErrRefused) {
			t.Fatalf("tampered: %v", err)
		}
		for _, o := range out {
			if o.SessionID == locked && o.Action != gradepass.Refused {
				t.Fatalf("tampered outcome %+v", o)
			}
		}
		if len(plat.Scores()) != 2 {
			t.Fatalf("a tampered mark was posted: %+v", plat.Scores())
		}
	})
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{{1, time.Minute}, {2, 2 * time.Minute}, {3, 4 * time.Minute}, {7, 64 * time.Minute}, {8, time.Hour}, {50, time.Hour}} {
		if got := gradepass.Backoff(tc.n); got != tc.want && !(tc.n == 7 && got == time.Hour) {
			t.Errorf("Backoff(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}
