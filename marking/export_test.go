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

// TestGradebookCells: names carrying terminal escapes (ESC, an OSC 52 clipboard write), a
// right-to-left override, or a formula after spaces or in full-width forms come out of both
// formats inert, by the one cell rule (textsafe.Cell). The CSV wrote them raw before.
func TestGradebookCells(t *testing.T) {
	hostile := []struct{ in, want string }{
		{"Eve\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07", "Eve"},
		{"Mallory\u202etxt.exe", "Mallorytxt.exe"},
		{" =1+1", "' =1+1"},
		{"＝1+1", "'＝1+1"},
		{"\t@SUM(A1)", "' @SUM(A1)"},
	}
	for _, h := range hostile {
		rows := []GradeRow{{Candidate: h.in, ExamID: "e", SessionID: "s", Markers: []string{h.in}, LockedBy: h.in}}
		var b bytes.Buffer
		if err := WriteGradebook(&b, ExportCSV, rows, nil, ""); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(b.Bytes())).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if got := recs[1]; got[0] != h.want || got[len(got)-5] != h.want || got[len(got)-3] != h.want {
			t.Errorf("CSV of %q: %q, want %q in each name", h.in, got, h.want)
		}
		b.Reset()
		if err := WriteGradebook(&b, ExportJSON, rows, nil, ""); err != nil {
			t.Fatal(err)
		}
		var back []GradeRow
		if err := json.Unmarshal(b.Bytes(), &back); err != nil || back[0].Candidate != h.want || back[0].Markers[0] != h.want || back[0].LockedBy != h.want {
			t.Errorf("JSON of %q: %+v %v, want %q", h.in, back, err, h.want)
		}
	}
}
