package marking

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestGradebookFormats writes rows as CSV and JSON and reads them back with their parsers;
// names that a spreadsheet would run as formulas are written as text.
func TestGradebookFormats(t *testing.T) {
	m := runtimetest.DemoExam(t, nil).Marking
	passed := true
	at := time.Date(2026, 1, 6, 12, 0, 0, 0, time.UTC)
	n := func(i int) *int { return &i }
	rows := []GradeRow{
		{Candidate: "Priya, \"P\" Shah", ExamID: "hospitality-oral-b2", SessionID: "s1", Total: n(7), MaxTotal: 12, Passed: &passed, Grade: "pass",
			Complete: true, Markers: []string{"alice", "@bob"}, LockedAt: &at, LockedBy: "carol", LockDigest: "ab12",
			Criteria: []GradeCriterion{{"options", "analysis", n(2)}, {"clientele", "description", n(1)}, {"resources", "evaluation", n(4)}, {"communication", "none", n(0)}}},
		{Candidate: "=HYPERLINK(\"http://x\")", ExamID: "hospitality-oral-b2", SessionID: "s2", MaxTotal: 12, Markers: []string{},
			Criteria: []GradeCriterion{{"options", "", nil}, {"clientele", "", nil}, {"resources", "", nil}, {"communication", "", nil}}},
	}
	var b bytes.Buffer
	if err := WriteGradebook(&b, ExportCSV, rows, m, ""); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"candidate", "exam", "session", "options_level", "options_marks", "clientele_level", "clientele_marks", "resources_level", "resources_marks",
			"communication_level", "communication_marks", "total", "max_total", "result", "grade", "markers", "locked_at", "locked_by", "lock_digest", "verified"},
		{"Priya, \"P\" Shah", "hospitality-oral-b2", "s1", "analysis", "2", "description", "1", "evaluation", "4", "none", "0", "7", "12", "pass", "pass",
			"alice;@bob", "2026-01-06T12:00:00Z", "carol", "ab12", "yes"},
		{"'=HYPERLINK(\"http://x\")", "hospitality-oral-b2", "s2", "", "", "", "", "", "", "", "", "", "12", "unlocked", "", "", "", "", "", ""},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %q", len(recs), len(want), recs)
	}
	for i := range want {
		for j := range want[i] {
			if recs[i][j] != want[i][j] {
				t.Errorf("record %d field %d (%s) = %q, want %q", i, j, want[0][j], recs[i][j], want[i][j])
			}
		}
	}
	b.Reset()
	if err := WriteGradebook(&b, ExportJSON, rows, m, ""); err != nil {
		t.Fatal(err)
	}
	var back []GradeRow
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back) != 2 || back[0].Candidate != rows[0].Candidate || back[1].LockedAt != nil {
		t.Errorf("json: %v %+v", err, back)
	}
	if _, err := ParseExportFormat("xlsx"); err == nil {
		t.Error("xlsx accepted")
	}
}
