package sessions

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/examtui/examtui/internal/textsafe"
)

// CandidateColumns are the columns of a candidate roster CSV, candidate_id first and required,
// the others optional and in any order.
var CandidateColumns = []string{"candidate_id", "name", "email", "username", "sis_user_id", "sis_login_id", "lms_user_id", "section"}

// ErrBadRoster reports a candidate roster CSV examtui cannot import as it is.
var ErrBadRoster = errors.New("invalid candidate roster")

// ParseCandidatesCSV reads a candidate roster: a header naming some of CandidateColumns
// (candidate_id required), then one candidate per row. It refuses the whole file on the first
// problem, naming its line: an unknown or repeated column, a row without a candidate_id, a
// candidate_id given twice.
func ParseCandidatesCSV(r io.Reader) ([]Candidate, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: empty file (a header line is needed: %s)", ErrBadRoster, strings.Join(CandidateColumns, ","))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRoster, err)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if !slices.Contains(CandidateColumns, h) {
			return nil, fmt.Errorf("%w: line 1: unknown column %q (columns: %s)", ErrBadRoster, h, strings.Join(CandidateColumns, ", "))
		}
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("%w: line 1: column %q twice", ErrBadRoster, h)
		}
		col[h] = i
	}
	if _, ok := col["candidate_id"]; !ok {
		return nil, fmt.Errorf("%w: line 1: no candidate_id column", ErrBadRoster)
	}
	var out []Candidate
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadRoster, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(head) {
			return nil, fmt.Errorf("%w: line %d: %d fields, the header has %d", ErrBadRoster, line, len(rec), len(head))
		}
		get := func(name string) string {
			i, ok := col[name]
			if !ok {
				return ""
			}
			return strings.TrimSpace(textsafe.Line(rec[i]))
		}
		c := Candidate{CandidateID: get("candidate_id"), Name: get("name"), Email: get("email"), Username: get("username"),
			SISUserID: get("sis_user_id"), SISLoginID: get("sis_login_id"), LMSUserID: get("lms_user_id"), Section: get("section")}
		if c.CandidateID == "" {
			return nil, fmt.Errorf("%w: line %d: no candidate_id", ErrBadRoster, line)
		}
		if first, dup := seen[c.CandidateID]; dup {
			return nil, fmt.Errorf("%w: line %d: candidate_id %q already on line %d", ErrBadRoster, line, c.CandidateID, first)
		}
		seen[c.CandidateID] = line
		out = append(out, c)
	}
}
