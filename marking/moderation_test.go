package marking

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to tamper with a PostgreSQL store
	_ "modernc.org/sqlite"             // the "sqlite" driver, to tamper with a SQLite store

	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// engine is a store backend: open gives a fresh store (as its owner) and a raw connection to
// the same database, through which a test tampers as someone with database access would; as
// opens the same store as one person: on SQLite with that local identity, on PostgreSQL as a
// plain LOGIN role of that name.
type engine struct {
	name string
	open func(t *testing.T) (*sessions.Store, *sql.DB, func(t *testing.T, who string) *sessions.Store)
}

var engines = []engine{
	{"sqlite", func(t *testing.T) (*sessions.Store, *sql.DB, func(*testing.T, string) *sessions.Store) {
		dir := t.TempDir()
		st, db := openBoth(t, dir, "sqlite", filepath.Join(dir, sessions.DBFile))
		return st, db, func(t *testing.T, who string) *sessions.Store {
			return openAs(t, dir, sessions.WithLocalIdentity(who))
		}
	}},
	{"postgres", func(t *testing.T) (*sessions.Store, *sql.DB, func(*testing.T, string) *sessions.Store) {
		u := pgtest.NewDB(t)
		st, db := openBoth(t, u, "pgx", u)
		return st, db, func(t *testing.T, who string) *sessions.Store {
			return openAs(t, pgtest.LoginRole(t, u, who))
		}
	}},
}

func openAs(t *testing.T, target string, opts ...sessions.Option) *sessions.Store {
	t.Helper()
	st, err := sessions.OpenURL(context.Background(), target, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func openBoth(t *testing.T, target, driver, dsn string) (*sessions.Store, *sql.DB) {
	t.Helper()
	st := openAs(t, target)
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return st, db
}

// roster puts people on an exam's roster with a role, through the owner's store; on
// PostgreSQL each is first a plain LOGIN role, as an institution's DBA would create them.
func addRoster(t *testing.T, owner *sessions.Store, exam string, role sessions.MarkingRole, names ...string) {
	t.Helper()
	for _, n := range names {
		if owner.Engine() == sessions.EnginePostgres {
			pgtest.LoginRole(t, owner.Target(), n)
		}
		if err := owner.AddToRoster(context.Background(), exam, n, role); err != nil {
			t.Fatal(err)
		}
	}
}

// record records the example rehearsal as a finished session, started after the given time.
func record(t *testing.T, st *sessions.Store, candidate string, after time.Duration, scheme ...func(*spec.CompiledMarking)) string {
	t.Helper()
	return recordScript(t, st, testutil.RehearsalScript, candidate, after, scheme...)
}

// recordScript records the example candidate script name as candidate's session.
func recordScript(t *testing.T, st *sessions.Store, name, candidate string, after time.Duration, scheme ...func(*spec.CompiledMarking)) string {
	t.Helper()
	start := headless.DefaultStart.Add(after)
	script, exam := runtimetest.Example(t, name)
	for _, f := range scheme {
		f(exam.Marking)
	}
	sess, err := st.Create(t.Context(), sessions.Meta{Exam: exam, Candidate: candidate, Examiner: "offline", Input: runtime.SourceTyped, StartedAt: start})
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
	return sess.ID
}

// TestModeration marks two rehearsals end to end on both engines: two markers, blind until
// each has marked, a disagreement queued and adjudicated, the lock refused until every
// criterion is final, verification, and a tampered event and mark detected and named.
func TestModeration(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) { testModeration(t, eng) })
	}
}

func testModeration(t *testing.T, eng engine) {
	ctx := context.Background()
	st, db, as := eng.open(t)
	a, b := record(t, st, "Priya", 0), record(t, st, "Tom", time.Hour)
	const exam = "hospitality-oral-b2"
	addRoster(t, st, exam, sessions.RoleMarker, "alice", "bob")
	addRoster(t, st, exam, sessions.RoleModerator, "carol")
	people := map[string]*sessions.Store{"alice": as(t, "alice"), "bob": as(t, "bob"), "carol": as(t, "carol")}
	at := time.Date(2026, 1, 6, 10, 0, 0, 0, time.UTC)
	set := func(id, crit, level, marker string) {
		t.Helper()
		if _, err := SetMark(ctx, people[marker], Entry{SessionID: id, Criterion: crit, Level: level, Marker: marker, Justification: "seen in the transcript"}, at); err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Minute)
	}
	queue := func(marker string) string {
		t.Helper()
		q, err := Queue(ctx, st, exam, marker)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range q {
			who := map[string]string{a: "a", b: "b"}[it.SessionID]
			out = append(out, who+":"+it.Reason.String()+":"+strings.Join(it.Criteria, "+"))
		}
		return strings.Join(out, " ")
	}
	if got := queue(""); got != "a:unmarked:options+clientele+resources+communication b:unmarked:options+clientele+resources+communication" {
		t.Errorf("queue before marking: %s", got)
	}
	// Alice marks both sessions; Bob marks a, disagreeing on options.
	for _, id := range []string{a, b} {
		set(id, "options", "description", "alice")
		set(id, "clientele", "description", "alice")
		set(id, "resources", "evaluation", "alice")
		set(id, "communication", "none", "alice")
	}
	// Bob has marked nothing: alice's levels are hidden from him.
	v, err := Show(ctx, people["bob"], a, "bob")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Criteria {
		if c.Own != nil || len(c.Others) != 0 || c.Hidden != 1 || c.Final != nil || c.Status != StatusUnknown {
			t.Errorf("blind view of %s shows %+v", c.Criterion, c)
		}
	}
	if got := queue("bob"); got != "a:unmarked:options+clientele+resources+communication b:unmarked:options+clientele+resources+communication" {
		t.Errorf("bob's queue: %s", got)
	}
	set(a, "options", "analysis", "bob")
	v, _ = Show(ctx, people["bob"], a, "bob")
	if c := v.Criteria[0]; c.Own == nil || c.Own.Level != "analysis" || len(c.Others) != 1 || c.Others[0].Level != "description" || c.Status != StatusDisagreed {
		t.Errorf("bob's view of options after marking it: %+v", c)
	}
	if c := v.Criteria[1]; c.Hidden != 1 || len(c.Others) != 0 {
		t.Errorf("bob sees clientele before marking it: %+v", c)
	}
	set(a, "clientele", "description", "bob")
	set(a, "resources", "evaluation", "bob")
	set(a, "communication", "none", "bob")
	if got := queue(""); got != "a:disagreement:options b:ready to lock:" {
		t.Errorf("queue after marking: %s", got)
	}
	if _, err := Lock(ctx, people["carol"], a, "carol", at); !errors.Is(err, ErrNoFinalLevel) || !strings.Contains(err.Error(), "options (disagreed)") {
		t.Errorf("lock with a disagreement: %v", err)
	}
	if _, err := Adjudicate(ctx, people["carol"], Entry{SessionID: a, Criterion: "options", Level: "analysis", Marker: "carol", Justification: "two options weighed"}, at); err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]Entry{
		"unknown criterion": {SessionID: a, Criterion: "optoins", Level: "analysis", Marker: "alice", Justification: "j"},
		"unknown level":     {SessionID: a, Criterion: "options", Level: "synthesis", Marker: "alice", Justification: "j"},
		"no justification":  {SessionID: a, Criterion: "options", Level: "analysis", Marker: "alice", Justification: " "},
	} {
		if _, err := SetMark(ctx, people["alice"], e, at); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// A session still running cannot be marked.
	_, demo := runtimetest.Rehearsal(t)
	running, err := st.Create(ctx, sessions.Meta{Exam: demo, Candidate: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SetMark(ctx, people["alice"], Entry{SessionID: running.ID, Criterion: "options", Level: "analysis", Marker: "alice", Justification: "j"}, at); !errors.Is(err, ErrSessionRunning) {
		t.Errorf("mark of a running session: %v", err)
	}
	lock, err := Lock(ctx, people["carol"], a, "carol", at)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SetMark(ctx, people["bob"], Entry{SessionID: a, Criterion: "options", Level: "evaluation", Marker: "bob", Justification: "j"}, at); !errors.Is(err, sessions.ErrMarksLocked) {
		t.Errorf("mark after the lock: %v", err)
	}
	if got := queue(""); got != "b:ready to lock:" {
		t.Errorf("queue after the lock: %s", got)
	}
	ver, err := Verify(ctx, st, a)
	if err != nil || !ver.OK() || ver.Digest != lock.Digest {
		t.Fatalf("verify untouched: %+v, %v", ver, err)
	}
	if _, err := Verify(ctx, st, b); !errors.Is(err, ErrNotLocked) {
		t.Errorf("verify unlocked: %v", err)
	}

	// Agreement over the one session marked twice: 3 of 4 criteria agreed.
	ag, err := ExamAgreement(ctx, st, exam)
	if err != nil {
		t.Fatal(err)
	}
	if ag.Overall.Items != 4 || *ag.Overall.Exact != 0.75 || strings.Join(ag.Markers, ",") != "alice,bob" {
		t.Errorf("agreement %+v", ag.Overall)
	}
	var crits []string
	for _, c := range ag.Criteria {
		crits = append(crits, c.Criterion)
	}
	if strings.Join(crits, ",") != "options,clientele,resources,communication" {
		t.Errorf("agreement criteria in the order %v, want the scheme's", crits)
	}

	// Export: a locked, complete row and an unlocked one.
	rows, scheme, err := Gradebook(ctx, st, exam)
	if err != nil || len(rows) != 2 || scheme == nil {
		t.Fatalf("gradebook %+v, %v", rows, err)
	}
	ra := rows[slices.IndexFunc(rows, func(r GradeRow) bool { return r.SessionID == a })]
	if ra.Total == nil || *ra.Total != 7 || ra.LockDigest != lock.Digest || ra.Grade != "pass" || !ra.Complete || ra.LockedAt == nil || strings.Join(ra.Markers, ",") != "alice,bob,carol" {
		t.Errorf("row of a: %+v", ra)
	}

	if r, err := LockedResult(ctx, st, a); err != nil || r.Total == nil || *r.Total != 7 || r.LockDigest != lock.Digest {
		t.Errorf("locked result of a: %+v, %v", r, err)
	}
	if _, err := LockedResult(ctx, st, b); !errors.Is(err, ErrNotLocked) {
		t.Errorf("locked result of an unlocked session: %v", err)
	}

	// Tampering after the lock, straight in the database.
	tamper := func(q string, args ...any) {
		t.Helper()
		if eng.name == "postgres" {
			q = strings.ReplaceAll(q, "?", "$1")
		}
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	edit := `CAST(REPLACE(CAST(payload AS TEXT), 'labour cost', 'labour costs') AS BLOB)`
	if eng.name == "postgres" {
		edit = `convert_to(replace(convert_from(payload, 'UTF8'), 'labour cost', 'labour costs'), 'UTF8')`
	}
	tamper(`UPDATE events SET payload = `+edit+` WHERE session_id = ? AND type = 'evidence_update'`, a)
	ver, err = Verify(ctx, st, a)
	if err != nil {
		t.Fatal(err)
	}
	if ver.OK() || strings.Join(ver.Changes, "; ") != "event seq 46 (evidence_update) changed" {
		t.Errorf("tampered event: ok=%v, changes %q", ver.OK(), ver.Changes)
	}
	tamper(`UPDATE marks SET level = 'evaluation' WHERE session_id = ? AND criterion = 'options' AND marker = 'bob'`, a)
	ver, _ = Verify(ctx, st, a)
	if strings.Join(ver.Changes, "; ") != "event seq 46 (evidence_update) changed; mark of bob for options changed" {
		t.Errorf("tampered mark: changes %q", ver.Changes)
	}
	// The candidate renamed, the stored pass mark lowered from 6 to 1 (the JSON edited in
	// place, its content hash left as it was).
	tamper(`UPDATE sessions SET candidate = 'Mallory' WHERE id = ?`, a)
	tamper(`UPDATE exams SET exam_json = REPLACE(exam_json, '"passMark":6', '"passMark":1') WHERE sha256 = (SELECT exam_sha256 FROM sessions WHERE id = ?)`, a)
	ver, _ = Verify(ctx, st, a)
	want := "the candidate's identity (name, candidate id, roster entry) changed; the compiled exam hospitality-oral-b2 as stored changed; " +
		"the marking scheme as stored changed; event seq 46 (evidence_update) changed; mark of bob for options changed"
	if got := strings.Join(ver.Changes, "; "); got != want {
		t.Errorf("tampered candidate and scheme:\n got %s\nwant %s", got, want)
	}
	if _, err := LockedResult(ctx, st, a); !errors.Is(err, ErrUnverified) || !strings.Contains(err.Error(), "the marking scheme as stored changed") {
		t.Errorf("locked result of a tampered session: %v", err)
	}
	// The export verifies every locked row: it refuses, naming the session, or marks the row.
	if _, _, err := Gradebook(ctx, st, exam); !errors.Is(err, ErrUnverified) || !strings.Contains(err.Error(), a) || strings.Contains(err.Error(), b) {
		t.Errorf("export of a tampered row: %v", err)
	}
	rows, _, err = Gradebook(ctx, st, exam, IncludeUnverified())
	if err != nil {
		t.Fatal(err)
	}
	ra = rows[slices.IndexFunc(rows, func(r GradeRow) bool { return r.SessionID == a })]
	if len(ra.Unverified) != 5 {
		t.Errorf("row of a with --include-unverified: %+v", ra)
	}
	rb := rows[slices.IndexFunc(rows, func(r GradeRow) bool { return r.SessionID == b })]
	if rb.Total != nil || rb.Grade != "" || len(rb.Markers) != 0 || rb.Criteria[0].Level != "" || rb.Result() != "unlocked" {
		t.Errorf("unlocked row shows its marking: %+v", rb)
	}
}
