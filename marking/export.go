package marking

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// ExportFormat is a gradebook export's format.
type ExportFormat int

// Export formats.
const (
	ExportUnknown ExportFormat = iota
	ExportCSV
	ExportJSON
)

func (f ExportFormat) String() string {
	switch f {
	case ExportCSV:
		return "csv"
	case ExportJSON:
		return "json"
	}
	return fmt.Sprintf("ExportFormat(%d)", int(f))
}

// ParseExportFormat parses csv or json.
func ParseExportFormat(s string) (ExportFormat, error) {
	for _, f := range []ExportFormat{ExportCSV, ExportJSON} {
		if f.String() == s {
			return f, nil
		}
	}
	return ExportUnknown, fmt.Errorf("unknown export format %q (csv, json)", s)
}

// GradeRow is one session in the gradebook: its final levels and what they add up to. A
// criterion without a final level has an empty level and counts no marks; Complete says
// whether every criterion has one.
type GradeRow struct {
	Candidate string           `json:"candidate"`
	ExamID    string           `json:"exam"`
	SessionID string           `json:"session"`
	Criteria  []GradeCriterion `json:"criteria"`
	Total     int              `json:"total"`
	MaxTotal  int              `json:"maxTotal"`
	Passed    *bool            `json:"passed,omitempty"`
	Grade     string           `json:"grade,omitempty"`
	Complete  bool             `json:"complete"`
	Markers   []string         `json:"markers"`
	LockedAt  *time.Time       `json:"lockedAt,omitempty"`
	LockedBy  string           `json:"lockedBy,omitempty"`
}

// GradeCriterion is one criterion's final level in the gradebook.
type GradeCriterion struct {
	Criterion string `json:"criterion"`
	Level     string `json:"level"`
	Marks     int    `json:"marks"`
}

// Gradebook lists an exam's finished sessions with their final levels, oldest first.
func Gradebook(ctx context.Context, st *sessions.Store, examID string) ([]GradeRow, *spec.CompiledMarking, error) {
	list, err := st.List(ctx)
	if err != nil {
		return nil, nil, err
	}
	slices.Reverse(list) // List is newest first
	var rows []GradeRow
	var scheme *spec.CompiledMarking
	for _, ls := range list {
		if ls.ExamID != examID || ls.EndedAt.IsZero() {
			continue
		}
		sess, err := st.Get(ctx, ls.ID)
		if err != nil {
			return nil, nil, err
		}
		exam, err := examOf(sess)
		if err != nil {
			continue
		}
		scheme = exam.Marking
		row, err := gradeRow(ctx, st, sess, exam.Marking)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, row)
	}
	return rows, scheme, nil
}

func gradeRow(ctx context.Context, st *sessions.Store, sess *sessions.Session, m *spec.CompiledMarking) (GradeRow, error) {
	marks, finals, err := marksOf(ctx, st, sess.ID)
	if err != nil {
		return GradeRow{}, err
	}
	row := GradeRow{Candidate: sess.Candidate, ExamID: sess.ExamID, SessionID: sess.ID, MaxTotal: m.MaxTotal, Complete: true, Markers: []string{}}
	for _, cs := range States(m, marks, finals) {
		gc := GradeCriterion{Criterion: cs.Criterion}
		if cs.Final != nil {
			gc.Level, gc.Marks = cs.Final.Level, cs.Final.Marks
		} else {
			row.Complete = false
		}
		row.Total += gc.Marks
		row.Criteria = append(row.Criteria, gc)
	}
	for _, mk := range append(marks, finals...) {
		if !slices.Contains(row.Markers, mk.Marker) {
			row.Markers = append(row.Markers, mk.Marker)
		}
	}
	slices.Sort(row.Markers)
	r := ResultOf(m, row.Total)
	row.Passed, row.Grade = r.Passed, r.Grade
	l, locked, err := st.MarkLock(ctx, sess.ID)
	if err != nil {
		return GradeRow{}, err
	}
	if locked {
		at := l.At
		row.LockedAt, row.LockedBy = &at, l.Marker
	}
	return row, nil
}

// WriteGradebook writes rows as CSV (one column pair per criterion of the scheme) or as a
// JSON array.
func WriteGradebook(w io.Writer, f ExportFormat, rows []GradeRow, m *spec.CompiledMarking) error {
	switch f {
	case ExportJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		out := make([]GradeRow, len(rows)) // never null: an exam without finished sessions is []
		for i, r := range rows {
			out[i] = r.cells()
		}
		return enc.Encode(out)
	case ExportCSV:
		cw := csv.NewWriter(w)
		head := []string{"candidate", "exam", "session"}
		if m != nil {
			for _, c := range m.Criteria {
				head = append(head, textsafe.Cell(c.ID+"_level"), textsafe.Cell(c.ID+"_marks"))
			}
		}
		head = append(head, "total", "max_total", "result", "grade", "markers", "locked_at", "locked_by")
		if err := cw.Write(head); err != nil {
			return err
		}
		for _, r := range rows {
			r = r.cells()
			rec := []string{r.Candidate, r.ExamID, r.SessionID}
			for _, c := range r.Criteria {
				rec = append(rec, c.Level, strconv.Itoa(c.Marks))
			}
			result := ""
			switch {
			case !r.Complete:
				result = "incomplete"
			case r.Passed != nil && *r.Passed:
				result = "pass"
			case r.Passed != nil:
				result = "fail"
			}
			locked := ""
			if r.LockedAt != nil {
				locked = r.LockedAt.Format(time.RFC3339)
			}
			rec = append(rec, strconv.Itoa(r.Total), strconv.Itoa(r.MaxTotal), result, r.Grade, textsafe.Cell(joinMarkers(r.Markers)), locked, r.LockedBy)
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("gradebook: %v", f)
}

// cells is the row with every text through textsafe.Cell, the one rule for an export's cells: a
// candidate's name comes from whoever joined the exam, and "=HYPERLINK(…)", an OSC 52 clipboard
// write or a right-to-left override are names too.
func (r GradeRow) cells() GradeRow {
	r.Candidate, r.ExamID, r.SessionID = textsafe.Cell(r.Candidate), textsafe.Cell(r.ExamID), textsafe.Cell(r.SessionID)
	r.Grade, r.LockedBy = textsafe.Cell(r.Grade), textsafe.Cell(r.LockedBy)
	if r.Criteria != nil {
		cs := make([]GradeCriterion, len(r.Criteria))
		for i, c := range r.Criteria {
			cs[i] = GradeCriterion{Criterion: textsafe.Cell(c.Criterion), Level: textsafe.Cell(c.Level), Marks: c.Marks}
		}
		r.Criteria = cs
	}
	if r.Markers != nil {
		ms := make([]string, len(r.Markers))
		for i, m := range r.Markers {
			ms[i] = textsafe.Cell(m)
		}
		r.Markers = ms
	}
	return r
}

func joinMarkers(ms []string) string {
	out := ""
	for i, m := range ms {
		if i > 0 {
			out += ";"
		}
		out += m
	}
	return out
}
