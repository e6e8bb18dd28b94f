package marking

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
)

// The importers' rules, as docs/marking.md ("Gradebook imports") writes them down from their
// source: Moodle's grade/import/csv/classes/load_data.php and Canvas's
// lib/gradebook_importer.rb. Each check returns the first rule a file breaks.

// moodleAccepts checks a file against Moodle's CSV grade import with the identity column
// idColumn mapped to its user field and every other column mapped to a grade item.
func moodleAccepts(data []byte, idColumn string) error {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return fmt.Errorf("M0 not CSV: %w", err)
	}
	head := recs[0]
	for i := range head {
		head[i] = strings.TrimSpace(head[i]) // M1: headers trimmed
	}
	if len(head) < 2 {
		return errors.New("M2 a line with one field is skipped: no data")
	}
	id := slices.Index(head, idColumn)
	if id < 0 {
		return fmt.Errorf("M3 no column %q to map the user from", idColumn)
	}
	seen := map[string]bool{}
	for _, h := range head {
		if seen[h] {
			return fmt.Errorf("M6 column %q twice: two items of one name", h)
		}
		seen[h] = true
	}
	ids := []string{"ID number", "Email address", "Username"}
	for n, rec := range recs[1:] {
		if len(rec) <= 1 {
			continue // M2
		}
		if strings.TrimSpace(rec[id]) == "" {
			return fmt.Errorf("M3 line %d: no user (the whole import is abandoned)", n+2)
		}
		for i, v := range rec {
			if i == id || slices.Contains(ids, head[i]) {
				continue // identity columns not mapped: ignored
			}
			v = strings.TrimSpace(v)
			if v == "" || v == "-" {
				continue // M4 no grade
			}
			f, err := strconv.ParseFloat(strings.Replace(v, ",", ".", 1), 64)
			if err != nil {
				return fmt.Errorf("M4 line %d column %q: %q is not a grade", n+2, head[i], v)
			}
			if f > moodleMaxGrade {
				return fmt.Errorf("M5 line %d: %g above the maximum grade", n+2, f)
			}
		}
	}
	return nil
}

var canvasNonAssignment = regexp.MustCompile("Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|Override Score|Override Grade|Override Status")

// canvasAccepts checks a file against Canvas's gradebook importer, and that it holds exactly
// one assignment column and identifies every student by an id.
func canvasAccepts(data []byte) error {
	lines := strings.SplitN(string(data), "\n", 4)
	counts := map[rune]int{}
	for _, sep := range []rune{',', ';'} {
		n := -1
		for _, l := range lines[:min(3, len(lines))] {
			r := csv.NewReader(strings.NewReader(l))
			r.Comma = sep
			rec, err := r.Read()
			if err != nil || (n >= 0 && len(rec) != n) {
				n = 0
				break
			}
			n = len(rec)
		}
		counts[sep] = n
	}
	if counts[';'] > counts[','] {
		return errors.New("C7 read as semicolon-separated")
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return fmt.Errorf("C0 not CSV: %w", err)
	}
	h := recs[0]
	if !(len(h) > 3 && strings.Contains(h[0], "Student") && strings.Contains(h[1], "ID")) {
		return errors.New("C1 invalid header row: Student, ID first")
	}
	cols := 3
	switch {
	case regexp.MustCompile(`SIS\s+Login\s+ID`).MatchString(h[2]):
		cols = 4
	case regexp.MustCompile(`SIS\s+User\s+ID`).MatchString(h[2]) && len(h) > 3 && regexp.MustCompile(`SIS\s+Login\s+ID`).MatchString(h[3]):
		cols = 5
	}
	if !strings.Contains(h[cols-1], "Section") {
		return errors.New("C2 invalid header row: the student columns end with Section")
	}
	var assignments []int
	for i := cols; i < len(h); i++ {
		if !canvasNonAssignment.MatchString(h[i]) {
			assignments = append(assignments, i)
		}
	}
	if len(assignments) != 1 {
		return fmt.Errorf("C3 %d assignment columns, want the one total", len(assignments))
	}
	a := assignments[0]
	for n, rec := range recs[1:] {
		if strings.Contains(rec[0], "Points Possible") {
			if _, err := strconv.ParseFloat(rec[a], 64); err != nil {
				return fmt.Errorf("C4 points possible %q", rec[a])
			}
			continue
		}
		if rec[1] == "" && (cols < 5 || rec[2] == "") && rec[cols-2] == "" {
			return fmt.Errorf("C5 line %d: no ID, SIS User ID or SIS Login ID: matched by name or a new student", n+2)
		}
		v := strings.TrimSpace(rec[a])
		if v == "" || v == "-" || strings.EqualFold(v, "EX") {
			continue
		}
		if _, err := strconv.ParseFloat(strings.Replace(v, ",", ".", 1), 64); err != nil {
			return fmt.Errorf("C6 line %d: %q is not a score", n+2, v)
		}
	}
	return nil
}

// TestLMSFiles writes the Moodle and Canvas files of a locked, an unlocked and a roster-less
// gradebook and checks them against the importers' rules; the plain CSV export, which the
// rules reject, shows the checks can fail.
func TestLMSFiles(t *testing.T) {
	m := runtimetest.DemoExam(t, nil).Marking
	at := time.Date(2026, 1, 6, 12, 0, 0, 0, time.UTC)
	n := func(i int) *int { return &i }
	pass := true
	rows := []GradeRow{
		{Candidate: "Priya", ExamID: "hospitality-oral-b2", SessionID: "s1", Total: n(7), MaxTotal: m.MaxTotal, Passed: &pass, Complete: true,
			LockedAt: &at, LockDigest: "ab", Roster: &sessions.Candidate{CandidateID: "c1", Name: "Priya Shah", Email: "priya@example.edu",
				Username: "pshah", SISUserID: "S001", SISLoginID: "pshah", LMSUserID: "101", Section: "B2-1"}},
		{Candidate: "=Tom", ExamID: "hospitality-oral-b2", SessionID: "s2", Total: n(4), MaxTotal: m.MaxTotal, Complete: true,
			LockedAt: &at, LockDigest: "cd", Roster: &sessions.Candidate{CandidateID: "c2", Name: "=Tom; Jones", SISLoginID: "tjones", Email: "t@example.edu"}},
		{Candidate: "Ann", ExamID: "hospitality-oral-b2", SessionID: "s3", MaxTotal: m.MaxTotal}, // not locked: left out
	}
	for _, c := range []struct {
		f     ExportFormat
		check func([]byte) error
		lines int
	}{
		{ExportMoodle, func(b []byte) error { return moodleAccepts(b, "ID number") }, 3},
		{ExportMoodle, func(b []byte) error { return moodleAccepts(b, "Email address") }, 3},
		{ExportCanvas, canvasAccepts, 4},
	} {
		var b bytes.Buffer
		if err := WriteGradebook(&b, c.f, rows, m, ""); err != nil {
			t.Fatalf("%v: %v", c.f, err)
		}
		if err := c.check(b.Bytes()); err != nil {
			t.Errorf("%v file breaks the importer's rule %v:\n%s", c.f, err, b.String())
		}
		if got := strings.Count(b.String(), "\n"); got != c.lines {
			t.Errorf("%v: %d lines, want %d:\n%s", c.f, got, c.lines, b.String())
		}
		if strings.Contains(b.String(), "Ann") {
			t.Errorf("%v: an unlocked row is in the file:\n%s", c.f, b.String())
		}
		// A locked row without a roster candidate is refused, naming its session.
		noRoster := append(slices.Clone(rows), GradeRow{SessionID: "s4", Total: n(5), Complete: true, LockedAt: &at})
		if err := WriteGradebook(&b, c.f, noRoster, m, ""); !errors.Is(err, ErrNoLMSIdentity) || !strings.Contains(err.Error(), "s4") {
			t.Errorf("%v without a roster candidate: %v", c.f, err)
		}
		bad := append(slices.Clone(rows), GradeRow{SessionID: "s5", Total: n(5), Complete: true, LockedAt: &at, Unverified: []string{"x"}, Roster: rows[0].Roster})
		if err := WriteGradebook(&b, c.f, bad, m, ""); !errors.Is(err, ErrUnverified) || !strings.Contains(err.Error(), "s5") {
			t.Errorf("%v with an unverified row: %v", c.f, err)
		}
	}
	var plain bytes.Buffer
	if err := WriteGradebook(&plain, ExportCSV, rows, m, ""); err != nil {
		t.Fatal(err)
	}
	if moodleAccepts(plain.Bytes(), "candidate") == nil || canvasAccepts(plain.Bytes()) == nil {
		t.Errorf("the plain gradebook passes the importers' rules; the checks cannot fail:\n%s", plain.String())
	}
}
