package sessions

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime/usage"
)

// ListRow is one session as `examtui sessions list --json` prints it.
type ListRow struct {
	ID          string    `json:"id"`
	ExamID      string    `json:"examId"`
	Title       string    `json:"title"`
	Candidate   string    `json:"candidate"`
	Examiner    string    `json:"examiner,omitempty"`
	Input       string    `json:"input,omitempty"`
	StartedAt   time.Time `json:"startedAt"`
	EndedAt     string    `json:"endedAt,omitempty"`
	DurationSec float64   `json:"durationSec"`
	Status      string    `json:"status"`
	State       string    `json:"state"`
	Interrupted bool      `json:"interrupted"`
	Events      int64     `json:"events"`
	Evidence    int       `json:"evidence"`
	Coverage    float64   `json:"coverage"`
	Usage       ListUsage `json:"usage"`
}

// WriteListJSON writes list as an indented JSON array of ListRow, costs priced from prices.
func WriteListJSON(w io.Writer, list []*Session, prices usage.Prices) error {
	rows := make([]ListRow, 0, len(list))
	for _, s := range list {
		r := ListRow{ID: s.ID, ExamID: s.ExamID, Title: s.Title, Candidate: s.Candidate, Examiner: s.Examiner,
			Input: s.Input.String(), StartedAt: s.StartedAt, DurationSec: s.Duration().Seconds(), Status: s.Status().String(),
			State: s.State.String(), Interrupted: s.Interrupted, Events: s.EventCount, Evidence: s.EvidenceCount, Coverage: s.Coverage,
			Usage: listUsage(s.Usage, prices)}
		if !s.EndedAt.IsZero() {
			r.EndedAt = s.EndedAt.Format(time.RFC3339Nano)
		}
		rows = append(rows, r)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// WriteListTable writes list as aligned columns for a person (`examtui sessions list`); COST
// is "?" when unknown (sessions show says why).
func WriteListTable(w io.Writer, list []*Session, prices usage.Prices) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "No sessions recorded yet.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEXAM\tSTARTED\tDURATION\tSTATE\tCANDIDATE\tEVIDENCE\tCOST")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d (%.0f%%)\t%s\n", s.ID, OneLine(s.ExamID), s.StartedAt.Local().Format("2006-01-02 15:04"),
			s.Duration().Round(time.Second), s.Status(), OneLine(s.Candidate), s.EvidenceCount, s.Coverage*100, s.Usage.Cost(prices).Short())
	}
	return tw.Flush()
}

// OneLine is text for one table cell or prompt: on one line, without control characters, "-"
// when empty.
func OneLine(s string) string {
	s = strings.Join(strings.Fields(textsafe.Line(s)), " ")
	if s == "" {
		return "-"
	}
	return s
}
