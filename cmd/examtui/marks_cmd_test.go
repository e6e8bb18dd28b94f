package main

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to tamper with the store as its owner

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/sessions"
)

// TestMarksCommands marks the example rehearsal end to end from the command line on the
// institution store, each person connecting as their own PostgreSQL LOGIN role: the owner
// puts them on the roster and imports the candidates; alice and bob mark (bob blind until he
// has marked, and refused when he claims to be alice); carol, the moderator, adjudicates the
// disagreement and locks; the gradebook (CSV with the lock's digest, Moodle, Canvas); then a
// renamed candidate is caught by verify (exit 1, naming it) and the export refuses the row.
func TestMarksCommands(t *testing.T) {
	u := pgtest.NewDB(t)
	id := rehearseIn(t, u, "Priya")
	urls := map[string]string{"owner": u}
	for _, who := range []string{"alice", "bob", "carol"} {
		urls[who] = pgtest.LoginRole(t, u, who)
	}
	as := func(who string, args ...string) (string, error) {
		t.Helper()
		out, errOut, err := runCmd(t, "", append([]string{"--store", urls[who]}, args...)...)
		if err != nil {
			errOut += err.Error()
		}
		return out + errOut, err
	}
	must := func(who string, args ...string) string {
		t.Helper()
		out, err := as(who, args...)
		if err != nil {
			t.Fatalf("%s: examtui %s: %v\n%s", who, strings.Join(args, " "), err, out)
		}
		return out
	}
	const exam = "hospitality-oral-b2"
	must("owner", "marks", "roster", "add", "--exam", exam, "--role", "marker", "alice")
	must("owner", "marks", "roster", "add", "--exam", exam, "--role", "marker", "bob")
	must("owner", "marks", "roster", "add", "--exam", exam, "--role", "moderator", "carol")
	if out := must("owner", "marks", "roster", "list", "--exam", exam); !strings.Contains(out, "moderator  carol") || strings.Count(out, "marker ") != 2 {
		t.Errorf("roster list:\n%s", out)
	}
	if out, err := as("bob", "marks", "roster", "add", "--exam", exam, "--role", "moderator", "bob"); err == nil {
		t.Errorf("bob made himself a moderator:\n%s", out)
	}
	roster := filepath.Join(t.TempDir(), "roster.csv")
	if err := os.WriteFile(roster, []byte("candidate_id,name,email,username,sis_user_id,sis_login_id,lms_user_id,section\n"+
		"c-001,Priya Shah,priya@example.edu,pshah,S001,pshah,101,B2-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := must("owner", "candidates", "import", roster); !strings.Contains(out, "1 candidates imported") {
		t.Errorf("candidates import: %s", out)
	}
	st, err := sessions.OpenURL(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AttachCandidate(context.Background(), id, "c-001"); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()

	var p struct {
		Criteria []struct {
			Criterion, Level string
			Evidence         []struct{ SegmentID string }
		}
	}
	if err := json.Unmarshal([]byte(must("alice", "marks", "propose", id[:6], "--json")), &p); err != nil || len(p.Criteria) != 4 {
		t.Fatalf("propose --json: %v %+v", err, p)
	}
	if c := p.Criteria[2]; c.Criterion != "resources" || c.Level != "evaluation" || len(c.Evidence) != 2 || c.Evidence[1].SegmentID == "" {
		t.Errorf("proposal for resources: %+v", c)
	}
	set := func(who, crit, level string, extra ...string) {
		t.Helper()
		must(who, append([]string{"marks", "set", id, "--criterion", crit, "--level", level, "--justification", "as heard"}, extra...)...)
	}
	set("alice", "options", "description", "--marker", "alice")
	for _, c := range [][2]string{{"clientele", "description"}, {"resources", "evaluation"}, {"communication", "none"}} {
		set("alice", c[0], c[1])
	}
	if out := must("bob", "marks", "show", id); !strings.Contains(out, "hidden until you mark (1)") || strings.Contains(out, "alice") {
		t.Errorf("bob's blind view:\n%s", out)
	}
	if out, err := as("bob", "marks", "set", id, "--criterion", "options", "--level", "analysis", "--marker", "alice", "--justification", "x"); err == nil ||
		!strings.Contains(out, `the store knows you as "bob"`) {
		t.Errorf("bob claiming to be alice: %v\n%s", err, out)
	}
	for _, c := range [][2]string{{"options", "analysis"}, {"clientele", "description"}, {"resources", "evaluation"}, {"communication", "none"}} {
		set("bob", c[0], c[1])
	}
	if out := must("bob", "marks", "show", id); !strings.Contains(out, "alice: description") {
		t.Errorf("bob's view after marking:\n%s", out)
	}
	if out := must("owner", "marks", "queue", "--exam", exam); !strings.Contains(out, "disagreement") || !strings.Contains(out, "options") {
		t.Errorf("queue:\n%s", out)
	}
	if out, err := as("carol", "marks", "lock", id); err == nil || !strings.Contains(out, "options (disagreed)") {
		t.Errorf("lock with a disagreement: %v\n%s", err, out)
	}
	if out, err := as("alice", "marks", "adjudicate", id, "--criterion", "options", "--level", "description", "--justification", "mine"); err == nil ||
		!strings.Contains(out, "not a moderator") {
		t.Errorf("alice adjudicating: %v\n%s", err, out)
	}
	must("carol", "marks", "adjudicate", id, "--criterion", "options", "--level", "analysis", "--justification", "two options weighed")
	out := must("carol", "marks", "lock", id)
	if !strings.Contains(out, "locked by carol") {
		t.Errorf("lock: %s", out)
	}
	digest := out[strings.Index(out, "sha256:")+len("sha256:"):]
	digest = strings.TrimSpace(digest)
	if out := must("alice", "marks", "verify", id); !strings.Contains(out, "ok: events and marks are as locked") {
		t.Errorf("verify: %s", out)
	}
	var ag struct {
		AlphaMetric string
		Overall     struct {
			Items int
			Exact *float64 `json:"exactAgreement"`
		}
	}
	if err := json.Unmarshal([]byte(must("carol", "marks", "agreement", "--exam", exam, "--json")), &ag); err != nil ||
		ag.AlphaMetric != "ordinal" || ag.Overall.Items != 4 || ag.Overall.Exact == nil || *ag.Overall.Exact != 0.75 {
		t.Errorf("agreement: %v %+v", err, ag)
	}
	if out := must("carol", "marks", "agreement", "--exam", exam); !strings.Contains(out, "alice–bob  4      0.750  0.667 [") ||
		!strings.Contains(out, "WEIGHTED KAPPA") || !strings.Contains(out, "warning: small sample: 4 items") {
		t.Errorf("agreement:\n%s", out)
	}
	recs, err := csv.NewReader(strings.NewReader(must("carol", "marks", "export", "--exam", exam, "--format", "csv"))).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("export csv: %v %q", err, recs)
	}
	row := map[string]string{}
	for i, h := range recs[0] {
		row[h] = recs[1][i]
	}
	if row["candidate"] != "Priya" || row["session"] != id || row["options_level"] != "analysis" || row["options_marks"] != "2" ||
		row["total"] != "7" || row["result"] != "pass" || row["grade"] != "pass" || row["markers"] != "alice;bob;carol" || row["locked_at"] == "" ||
		row["lock_digest"] != digest || row["verified"] != "yes" {
		t.Errorf("export row %v (digest %s)", row, digest)
	}
	if out := must("carol", "marks", "export", "--exam", exam, "--format", "moodle"); out != "ID number,Email address,Username,"+exam+"\nS001,priya@example.edu,pshah,7\n" {
		t.Errorf("moodle file:\n%s", out)
	}
	if out := must("carol", "marks", "export", "--exam", exam, "--format", "canvas", "--item", "Oral exam (42)"); out !=
		"Student,ID,SIS User ID,SIS Login ID,Section,Oral exam (42)\nPoints Possible,,,,,12\nPriya Shah,101,S001,pshah,B2-1,7\n" {
		t.Errorf("canvas file:\n%s", out)
	}

	// Someone with the owner's access renames the candidate after the lock.
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE sessions SET candidate = 'Mallory' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	out, err = as("carol", "marks", "verify", id)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(out, "the candidate's identity (name, candidate id, roster entry) changed") {
		t.Errorf("verify after renaming: %v\n%s", err, out)
	}
	out, err = as("carol", "marks", "export", "--exam", exam)
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(out, id) {
		t.Errorf("export of a renamed row: %v\n%s", err, out)
	}
	out = must("carol", "marks", "export", "--exam", exam, "--include-unverified")
	if !strings.Contains(out, "NO: the candidate's identity") {
		t.Errorf("export --include-unverified:\n%s", out)
	}
}

// TestMarksCommandsLocal: on a local store the marker is the operating-system account; a
// --marker naming anyone else is refused, and one person marks and locks a single-marked exam.
func TestMarksCommandsLocal(t *testing.T) {
	dir, id := recordRehearsal(t)
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	marks := func(args ...string) (string, error) {
		out, errOut, err := runCmd(t, "", append([]string{"--data-dir", dir, "marks"}, args...)...)
		return out + errOut, err
	}
	if out, err := marks("set", id, "--criterion", "options", "--level", "analysis", "--marker", "not-"+u.Username, "--justification", "j"); err == nil {
		t.Errorf("--marker naming someone else accepted:\n%s", out)
	}
	for _, c := range [][2]string{{"options", "analysis"}, {"clientele", "description"}, {"resources", "evaluation"}, {"communication", "none"}} {
		if out, err := marks("set", id, "--criterion", c[0], "--level", c[1], "--justification", "as heard"); err != nil {
			t.Fatalf("set: %v\n%s", err, out)
		}
	}
	if out, err := marks("lock", id); err != nil || !strings.Contains(out, "locked by "+u.Username) {
		t.Errorf("lock: %v\n%s", err, out)
	}
	if out, err := marks("export", "--exam", "hospitality-oral-b2"); err != nil || !strings.Contains(out, ",yes\n") {
		t.Errorf("export: %v\n%s", err, out)
	}
	// A candidate id the roster does not hold starts no exam.
	if _, _, err := runCmd(t, "", "--data-dir", dir, "run", "--headless", "--candidate-id", "c-404", "../../examples/hotel-breakfast.yaml"); err == nil ||
		!strings.Contains(err.Error(), "candidate not in the roster") {
		t.Errorf("run --candidate-id unknown: %v", err)
	}
}

// TestMarksQueuePassbackFailures: a score the LMS gradebook refused (marks publish records it)
// shows in the marking queue with the candidate, the error, the attempts and the next try; the
// queue has no such section while none failed, and another exam's failure is not listed.
func TestMarksQueuePassbackFailures(t *testing.T) {
	dir, id := recordRehearsal(t)
	queue := func(exam string) string {
		t.Helper()
		out, errOut, err := runCmd(t, "", "--data-dir", dir, "marks", "queue", "--exam", exam)
		if err != nil {
			t.Fatalf("queue: %v\n%s%s", err, out, errOut)
		}
		return out
	}
	if out := queue("hospitality-oral-b2"); strings.Contains(out, "gradebook") {
		t.Fatalf("a queue with no failure:\n%s", out)
	}
	st := apptest.OpenStore(t, dir)
	next := time.Date(2026, 12, 6, 12, 4, 0, 0, time.Local)
	err := st.RecordLTIScore(context.Background(), sessions.LTIScore{SessionID: id, LineItem: "https://lms.example/lineitems/7",
		CandidateID: "lti:x:7", Grading: "Pending", Status: sessions.LTIScoreFailed, Attempts: 3,
		LastError: `post a score: 400 Bad Request: scores: userId "7" is not in the course`, Updated: next.Add(-4 * time.Minute), NextAttempt: next})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := queue("hospitality-oral-b2")
	for _, want := range []string{"Scores the gradebook did not take (1)", "NEXT TRY", id, "Pending", "3", "2026-12-06 12:04:00", `userId "7" is not in the course`} {
		if !strings.Contains(out, want) {
			t.Errorf("the queue does not say %q:\n%s", want, out)
		}
	}
	if out := queue("another-exam"); strings.Contains(out, "gradebook") {
		t.Errorf("another exam's queue lists the failure:\n%s", out)
	}
}
