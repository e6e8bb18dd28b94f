package marking

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
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
	// ExportMoodle is Moodle's grade import CSV; ExportCanvas Canvas's gradebook CSV.
	ExportMoodle
	ExportCanvas
)

func (f ExportFormat) String() string {
	switch f {
	case ExportCSV:
		return "csv"
	case ExportJSON:
		return "json"
	case ExportMoodle:
		return "moodle"
	case ExportCanvas:
		return "canvas"
	}
	return fmt.Sprintf("ExportFormat(%d)", int(f))
}

// ParseExportFormat parses csv, json, moodle or canvas.
func ParseExportFormat(s string) (ExportFormat, error) {
	for _, f := range []ExportFormat{ExportCSV, ExportJSON, ExportMoodle, ExportCanvas} {
		if f.String() == s {
			return f, nil
		}
	}
	return ExportUnknown, fmt.Errorf("unknown export format %q (csv, json, moodle, canvas)", s)
}

// GradeRow is one session in the gradebook. Only a locked row whose store still matches its
// lock is final: it carries its levels, total, result and the lock's digest. An unlocked row
// carries nothing of its marking (no level, total, grade or marker: a blind marking in
// progress shows nothing); a locked row that no longer matches its lock is refused by the
// export, or, when asked, written with Unverified naming what changed.
type GradeRow struct {
	Candidate   string           `json:"candidate"`
	CandidateID string           `json:"candidateId,omitempty"`
	ExamID      string           `json:"exam"`
	SessionID   string           `json:"session"`
	Criteria    []GradeCriterion `json:"criteria"`
	Total       *int             `json:"total,omitempty"`
	MaxTotal    int              `json:"maxTotal"`
	Passed      *bool            `json:"passed,omitempty"`
	Grade       string           `json:"grade,omitempty"`
	Complete    bool             `json:"complete"`
	Markers     []string         `json:"markers"`
	LockedAt    *time.Time       `json:"lockedAt,omitempty"`
	LockedBy    string           `json:"lockedBy,omitempty"`
	LockDigest  string           `json:"lockDigest,omitempty"`
	// Unverified lists what changed since the lock (set only with IncludeUnverified).
	Unverified []string `json:"unverified,omitempty"`
	// Roster is the candidate's roster entry, when the session has one (the LMS formats).
	Roster *sessions.Candidate `json:"-"`
}

// GradeCriterion is one criterion's final level in the gradebook.
type GradeCriterion struct {
	Criterion string `json:"criterion"`
	Level     string `json:"level,omitempty"`
	Marks     *int   `json:"marks,omitempty"`
}

// ListOption configures Gradebook and Queue.
type ListOption func(*listConfig)

type listConfig struct{ includeUnverified, includeRehearsals bool }

func listOptions(opts []ListOption) listConfig {
	var c listConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// IncludeUnverified writes rows that no longer match their lock, marked as such, instead of
// refusing the export.
func IncludeUnverified() ListOption {
	return func(c *listConfig) { c.includeUnverified = true }
}

// IncludeRehearsals keeps the sessions candidate scripts played (examtui test, rehearsals),
// which the queue and the gradebook leave out by default.
func IncludeRehearsals() ListOption {
	return func(c *listConfig) { c.includeRehearsals = true }
}

// skip reports whether a listed session stays out: not this exam's, not finished, or a
// script's while rehearsals are not asked for.
func (c listConfig) skip(ls *sessions.Session, examID string) bool {
	return ls.ExamID != examID || ls.EndedAt.IsZero() || (!c.includeRehearsals && ls.IsRehearsal())
}

// Gradebook lists an exam's finished sessions (not candidate scripts', unless
// IncludeRehearsals), oldest first, each locked row verified
// against its lock first: a row that does not match refuses the whole export (ErrUnverified,
// naming the sessions) unless IncludeUnverified is given.
func Gradebook(ctx context.Context, st *sessions.Store, examID string, opts ...ListOption) ([]GradeRow, *spec.CompiledMarking, error) {
	cfg := listOptions(opts)
	list, err := st.List(ctx)
	if err != nil {
		return nil, nil, err
	}
	slices.Reverse(list) // List is newest first
	var rows []GradeRow
	var scheme *spec.CompiledMarking
	var bad []string
	for _, ls := range list {
		if cfg.skip(ls, examID) {
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
		if len(row.Unverified) > 0 {
			bad = append(bad, row.SessionID+" ("+strings.Join(row.Unverified, "; ")+")")
		}
		rows = append(rows, row)
	}
	if len(bad) > 0 && !cfg.includeUnverified {
		return nil, nil, fmt.Errorf("%w: %s", ErrUnverified, strings.Join(bad, ", "))
	}
	return rows, scheme, nil
}

func gradeRow(ctx context.Context, st *sessions.Store, sess *sessions.Session, m *spec.CompiledMarking) (GradeRow, error) {
	row := GradeRow{Candidate: sess.Candidate, ExamID: sess.ExamID, SessionID: sess.ID, MaxTotal: m.MaxTotal, Markers: []string{}}
	c, ok, err := st.CandidateOf(ctx, sess.ID)
	if err != nil {
		return GradeRow{}, err
	}
	row.CandidateID = c.CandidateID
	if ok {
		row.Roster = &c
	}
	l, locked, err := st.MarkLock(ctx, sess.ID)
	if err != nil {
		return GradeRow{}, err
	}
	if !locked {
		for _, c := range m.Criteria {
			row.Criteria = append(row.Criteria, GradeCriterion{Criterion: c.ID})
		}
		return row, nil
	}
	v, err := Verify(ctx, st, sess.ID)
	if err != nil {
		return GradeRow{}, err
	}
	if !v.OK() {
		row.Unverified = v.Changes
		if len(row.Unverified) == 0 {
			row.Unverified = []string{"the digest differs"}
		}
	}
	at := l.At
	row.LockedAt, row.LockedBy, row.LockDigest = &at, l.Marker, l.Digest
	marks, finals, err := marksOf(ctx, st, sess.ID)
	if err != nil {
		return GradeRow{}, err
	}
	total, complete := 0, true
	for _, cs := range States(m, marks, finals) {
		gc := GradeCriterion{Criterion: cs.Criterion}
		if cs.Final != nil {
			n := cs.Final.Marks
			gc.Level, gc.Marks = cs.Final.Level, &n
			total += n
		} else {
			complete = false
		}
		row.Criteria = append(row.Criteria, gc)
	}
	for _, mk := range append(marks, finals...) {
		if !slices.Contains(row.Markers, mk.Marker) {
			row.Markers = append(row.Markers, mk.Marker)
		}
	}
	slices.Sort(row.Markers)
	row.Complete = complete
	if complete {
		r := ResultOf(m, total)
		row.Total, row.Passed, row.Grade = &total, r.Passed, r.Grade
	}
	return row, nil
}

// WriteGradebook writes rows as CSV (one column pair per criterion of the scheme), as a JSON
// array, or as an LMS's import file (moodle, canvas: title names the grade column, default the
// exam id).
func WriteGradebook(w io.Writer, f ExportFormat, rows []GradeRow, m *spec.CompiledMarking, title string) error {
	switch f {
	case ExportMoodle:
		return writeMoodle(w, rows, m, title)
	case ExportCanvas:
		return writeCanvas(w, rows, m, title)
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
		head = append(head, "total", "max_total", "result", "grade", "markers", "locked_at", "locked_by", "lock_digest", "verified")
		if err := cw.Write(head); err != nil {
			return err
		}
		for _, raw := range rows {
			r := raw.cells()
			rec := []string{r.Candidate, r.ExamID, r.SessionID}
			for _, c := range r.Criteria {
				rec = append(rec, c.Level, optInt(c.Marks))
			}
			locked, verified := "", ""
			if r.LockedAt != nil {
				locked, verified = r.LockedAt.Format(time.RFC3339), "yes"
				if len(r.Unverified) > 0 {
					verified = "NO: " + strings.Join(r.Unverified, "; ")
				}
			}
			rec = append(rec, optInt(r.Total), strconv.Itoa(r.MaxTotal), r.Result(), r.Grade, textsafe.Cell(joinMarkers(raw.Markers)), locked,
				r.LockedBy, r.LockDigest, textsafe.Cell(verified))
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("gradebook: %v", f)
}

// Result is the row's result word: pass or fail when locked and complete, unlocked before the
// lock, incomplete for a locked row without every final level.
func (r GradeRow) Result() string {
	switch {
	case r.LockedAt == nil:
		return "unlocked"
	case !r.Complete:
		return "incomplete"
	case r.Passed != nil && *r.Passed:
		return "pass"
	case r.Passed != nil:
		return "fail"
	}
	return ""
}

func optInt(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

// cells is the row with every text through textsafe.Cell, the one rule for an export's cells: a
// candidate's name comes from whoever joined the exam, and "=HYPERLINK(…)", an OSC 52 clipboard
// write or a right-to-left override are names too.
func (r GradeRow) cells() GradeRow {
	r.Candidate, r.CandidateID, r.ExamID, r.SessionID = textsafe.Cell(r.Candidate), textsafe.Cell(r.CandidateID), textsafe.Cell(r.ExamID), textsafe.Cell(r.SessionID)
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
	if r.Unverified != nil {
		us := make([]string, len(r.Unverified))
		for i, u := range r.Unverified {
			us[i] = textsafe.Cell(u)
		}
		r.Unverified = us
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

// LockedResult is a session's final, verified result: its gradebook row, only when the
// session is locked, complete and still matches its lock (ErrNotLocked, ErrNoFinalLevel or
// ErrUnverified otherwise, naming what changed). It is what a program that posts marks to a
// learning platform sends: nothing unlocked or tampered with leaves through it.
func LockedResult(ctx context.Context, st *sessions.Store, id string) (*GradeRow, error) {
	sess, err := st.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	exam, err := examOf(sess)
	if err != nil {
		return nil, err
	}
	row, err := gradeRow(ctx, st, sess, exam.Marking)
	switch {
	case err != nil:
		return nil, err
	case row.LockedAt == nil:
		return nil, fmt.Errorf("session %s: %w", id, ErrNotLocked)
	case len(row.Unverified) > 0:
		return nil, fmt.Errorf("session %s: %w: %s", id, ErrUnverified, strings.Join(row.Unverified, "; "))
	case !row.Complete || row.Total == nil:
		return nil, fmt.Errorf("session %s: %w", id, ErrNoFinalLevel)
	}
	return &row, nil
}
