package main

import (
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/sessions"
)

// TestMarksCommands marks the example rehearsal end to end from the command line: the
// proposal, two markers (the second blind), the disagreement queued, the lock refused and
// then taken after adjudication, agreement figures, the CSV gradebook read back by a CSV
// parser, and a tampered event caught by verify (exit 1, naming the event).
func TestMarksCommands(t *testing.T) {
	dir, id := recordRehearsal(t)
	marks := func(args ...string) (string, error) {
		t.Helper()
		out, errOut, err := runCmd(t, "", append([]string{"--data-dir", dir, "marks"}, args...)...)
		return out + errOut, err
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := marks(args...)
		if err != nil {
			t.Fatalf("marks %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	var p struct {
		Criteria []struct {
			Criterion, Level string
			Evidence         []struct{ SegmentID string }
		}
	}
	if err := json.Unmarshal([]byte(must("propose", id[:6], "--json")), &p); err != nil || len(p.Criteria) != 4 {
		t.Fatalf("propose --json: %v %+v", err, p)
	}
	if c := p.Criteria[2]; c.Criterion != "resources" || c.Level != "evaluation" || len(c.Evidence) != 2 || c.Evidence[1].SegmentID == "" {
		t.Errorf("proposal for resources: %+v", c)
	}
	set := func(marker, crit, level string) {
		t.Helper()
		must("set", id, "--criterion", crit, "--level", level, "--marker", marker, "--justification", "as heard")
	}
	for _, c := range [][2]string{{"options", "description"}, {"clientele", "description"}, {"resources", "evaluation"}, {"communication", "none"}} {
		set("alice", c[0], c[1])
	}
	if out := must("show", id, "--marker", "bob"); !strings.Contains(out, "hidden until you mark (1)") || strings.Contains(out, "alice") {
		t.Errorf("bob's blind view:\n%s", out)
	}
	for _, c := range [][2]string{{"options", "analysis"}, {"clientele", "description"}, {"resources", "evaluation"}, {"communication", "none"}} {
		set("bob", c[0], c[1])
	}
	if out := must("show", id, "--marker", "bob"); !strings.Contains(out, "alice: description") {
		t.Errorf("bob's view after marking:\n%s", out)
	}
	if out := must("queue", "--exam", "hospitality-oral-b2"); !strings.Contains(out, "disagreement") || !strings.Contains(out, "options") {
		t.Errorf("queue:\n%s", out)
	}
	if out, err := marks("lock", id, "--marker", "carol"); err == nil || !strings.Contains(err.Error(), "options (disagreed)") {
		t.Errorf("lock with a disagreement: %v\n%s", err, out)
	}
	must("adjudicate", id, "--criterion", "options", "--level", "analysis", "--marker", "carol", "--justification", "two options weighed")
	if out := must("lock", id, "--marker", "carol"); !strings.Contains(out, "locked by carol") {
		t.Errorf("lock: %s", out)
	}
	if out := must("verify", id); !strings.Contains(out, "ok: events and marks are as locked") {
		t.Errorf("verify: %s", out)
	}
	var ag struct {
		AlphaMetric string
		Overall     struct {
			Items int
			Exact *float64 `json:"exactAgreement"`
		}
	}
	if err := json.Unmarshal([]byte(must("agreement", "--exam", "hospitality-oral-b2", "--json")), &ag); err != nil ||
		ag.AlphaMetric != "ordinal" || ag.Overall.Items != 4 || ag.Overall.Exact == nil || *ag.Overall.Exact != 0.75 {
		t.Errorf("agreement: %v %+v", err, ag)
	}
	recs, err := csv.NewReader(strings.NewReader(must("export", "--exam", "hospitality-oral-b2", "--format", "csv"))).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("export csv: %v %q", err, recs)
	}
	row := map[string]string{}
	for i, h := range recs[0] {
		row[h] = recs[1][i]
	}
	if row["candidate"] != "Priya" || row["session"] != id || row["options_level"] != "analysis" || row["options_marks"] != "2" ||
		row["total"] != "7" || row["result"] != "pass" || row["grade"] != "pass" || row["markers"] != "alice;bob;carol" || row["locked_at"] == "" {
		t.Errorf("export row %v", row)
	}

	// Someone edits a stored answer after the lock.
	db, err := sql.Open("sqlite", filepath.Join(dir, sessions.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE events SET payload = CAST(REPLACE(CAST(payload AS TEXT), 'labour cost', 'labour costs') AS BLOB)
		WHERE session_id = ? AND type = 'evidence_update'`, id); err != nil {
		t.Fatal(err)
	}
	out, err := marks("verify", id)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(out, "event seq 46 (evidence_update) changed") {
		t.Errorf("verify after tampering: %v\n%s", err, out)
	}
}
