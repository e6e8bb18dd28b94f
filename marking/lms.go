package marking

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/spec"
)

// The LMS gradebook files (docs/marking.md, "Gradebook imports"). Each holds one numeric
// column, the exam's total, for the locked and verified rows only, each identified by the
// candidate roster's identifiers: the importers' rules, as their source states them, are
// written down in docs/marking.md and checked by lms_test.go.

// moodleMaxGrade is Moodle's default grade point maximum: its CSV import refuses a larger
// value unless the site raised it (unlimitedgrades).
const moodleMaxGrade = 100

// lmsRows are the rows an LMS file may carry: locked, complete, verified, with an identifier.
// Unlocked rows are left out (the LMS keeps what it has); the rest refuse the file, naming
// the sessions, since either importer would reject or misfile them.
func lmsRows(rows []GradeRow, f ExportFormat) ([]GradeRow, error) {
	var out []GradeRow
	var noID, bad []string
	for _, r := range rows {
		switch {
		case r.LockedAt == nil:
			continue
		case len(r.Unverified) > 0 || !r.Complete || r.Total == nil:
			bad = append(bad, r.SessionID)
		case r.Roster == nil || !hasLMSID(r, f):
			noID = append(noID, r.SessionID)
		default:
			out = append(out, r)
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%v: %w: %s (an LMS file carries verified, complete rows only)", f, ErrUnverified, strings.Join(bad, ", "))
	}
	if len(noID) > 0 {
		return nil, fmt.Errorf("%v: %w: %s (examtui candidates import, then attach the candidate to the session)", f, ErrNoLMSIdentity, strings.Join(noID, ", "))
	}
	return out, nil
}

func hasLMSID(r GradeRow, f ExportFormat) bool {
	c := r.Roster
	if f == ExportMoodle {
		return moodleID(r) != "" || c.Email != "" || c.Username != ""
	}
	return c.LMSUserID != "" || c.SISUserID != "" || c.SISLoginID != ""
}

// moodleID is the value for Moodle's "ID number" user field: the SIS user id, else examtui's
// candidate id (an institution that sets Moodle's ID numbers from its own register uses that).
func moodleID(r GradeRow) string {
	if r.Roster.SISUserID != "" {
		return r.Roster.SISUserID
	}
	return r.Roster.CandidateID
}

// itemName is the one grade column's header: the exam's id (Canvas: "Title (assignment id)"
// matches an existing assignment; a plain title creates one).
func itemName(rows []GradeRow, title string) string {
	if title != "" {
		return title
	}
	if len(rows) > 0 {
		return rows[0].ExamID
	}
	return "exam"
}

// writeMoodle writes Moodle's grade import CSV: three identity columns (map "ID number",
// "Email address" or "Username" to the user field of that name) and the total.
func writeMoodle(w io.Writer, rows []GradeRow, m *spec.CompiledMarking, title string) error {
	rows, err := lmsRows(rows, ExportMoodle)
	if err != nil {
		return err
	}
	if m != nil && m.MaxTotal > moodleMaxGrade {
		return fmt.Errorf("moodle: the exam's total can reach %d, above Moodle's default maximum grade %d", m.MaxTotal, moodleMaxGrade)
	}
	cw := csv.NewWriter(w)
	_ = cw.Write(cellsOf("ID number", "Email address", "Username", itemName(rows, title)))
	for _, r := range rows {
		_ = cw.Write(cellsOf(moodleID(r), r.Roster.Email, r.Roster.Username, strconv.Itoa(*r.Total)))
	}
	cw.Flush()
	return cw.Error()
}

// writeCanvas writes Canvas's gradebook CSV: Student, ID, SIS User ID, SIS Login ID, Section,
// the total's column, a "Points Possible" row with the exam's maximum, then one row per
// candidate.
func writeCanvas(w io.Writer, rows []GradeRow, m *spec.CompiledMarking, title string) error {
	rows, err := lmsRows(rows, ExportCanvas)
	if err != nil {
		return err
	}
	maxTotal := ""
	if m != nil {
		maxTotal = strconv.Itoa(m.MaxTotal)
	}
	cw := csv.NewWriter(w)
	_ = cw.Write(cellsOf("Student", "ID", "SIS User ID", "SIS Login ID", "Section", itemName(rows, title)))
	_ = cw.Write([]string{"Points Possible", "", "", "", "", maxTotal})
	for _, r := range rows {
		name := r.Roster.Name
		if name == "" {
			name = r.Candidate
		}
		_ = cw.Write(cellsOf(name, r.Roster.LMSUserID, r.Roster.SISUserID, r.Roster.SISLoginID, r.Roster.Section, strconv.Itoa(*r.Total)))
	}
	cw.Flush()
	return cw.Error()
}

// cellsOf is a record with every cell through textsafe.Cell, the one rule of every export.
func cellsOf(cells ...string) []string {
	for i, c := range cells {
		cells[i] = textsafe.Cell(c)
	}
	return cells
}
