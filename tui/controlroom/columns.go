package controlroom

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/internal/visual"
	"github.com/examtui/examtui/monitor"
)

type colID int

// Columns in screen order.
const (
	colMark colID = iota
	colCandidate
	colExam
	colNode
	colNodeTime
	colExamTime
	colInput
	colExaminer
	colCost
	colState
	colAlerts
	colLast
)

type column struct {
	id    colID
	title string
	w     int
}

// columnWidths are the fixed widths; the last candidate line takes what is left.
var columnWidths = map[colID]int{colMark: 2, colCandidate: 16, colExam: 16, colNode: 16, colNodeTime: 11,
	colExamTime: 11, colInput: 5, colExaminer: 10, colCost: 7, colState: 11, colAlerts: 16}

var columnTitles = map[colID]string{colMark: "", colCandidate: "CANDIDATE", colExam: "EXAM", colNode: "NODE",
	colNodeTime: "IN NODE", colExamTime: "IN EXAM", colInput: "INPUT", colExaminer: "EXAMINER", colCost: "COST", colState: "STATE",
	colAlerts: "ALERTS", colLast: "LAST CANDIDATE LINE"}

// dropOrder is which columns give way first on a narrow screen.
var dropOrder = []colID{colExaminer, colInput, colCost, colLast, colExam, colExamTime, colNodeTime, colNode}

const minLastWidth = 12

// layoutColumns picks the columns that fit width: fixed ones, then the last line if room.
func layoutColumns(width int) []column {
	ids := []colID{colMark, colCandidate, colExam, colNode, colNodeTime, colExamTime, colInput, colExaminer,
		colCost, colState, colAlerts, colLast}
	total := func(ids []colID) int {
		n := 0
		for _, id := range ids {
			w := columnWidths[id]
			if id == colLast {
				w = minLastWidth
			}
			n += w + 1
		}
		return n
	}
	for _, d := range dropOrder {
		if total(ids) <= width {
			break
		}
		ids = slices.DeleteFunc(ids, func(id colID) bool { return id == d })
	}
	cols := make([]column, 0, len(ids))
	used := 0
	for _, id := range ids {
		if id != colLast {
			used += columnWidths[id] + 1
		}
	}
	// A wide screen gives the exam title and the node some of the room first.
	grow := 0
	if slices.Contains(ids, colLast) {
		grow = min(max((width-used-1-minLastWidth-40)/3, 0), 12)
		used += 2 * grow
	}
	for _, id := range ids {
		w := columnWidths[id]
		if id == colExam || id == colNode {
			w += grow
		}
		if id == colLast {
			w = max(width-used-1, minLastWidth)
		}
		cols = append(cols, column{id: id, title: columnTitles[id], w: w})
	}
	return cols
}

func headerLine(cols []column) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(pad(c.title, c.w))
	}
	return b.String()
}

// pad cuts or pads plain or styled text to w cells.
func pad(s string, w int) string {
	if lipgloss.Width(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", max(w-lipgloss.Width(s), 0))
}

// readingCell is the exam's own text (a candidate's name, an exam title, what the candidate
// said) cut to w cells in its logical order, then laid out for the terminal (visual.Line): a
// right-to-left line reads from its right, and the cut keeps its beginning and says "…" at its
// end, on the left for Arabic. Cutting after reordering would keep a right-to-left line's end.
func readingCell(s string, w int) string {
	if lipgloss.Width(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	return visual.Line(s)
}

// shortState is the state in the list's narrow column.
func shortState(s monitor.RowState) string {
	if s == monitor.RowAwaiting {
		return "confirm?"
	}
	if s == monitor.RowInProgress {
		return "running"
	}
	return s.String()
}

func (m *Model) rowLine(cols []column, r *monitor.Row, now time.Time, selected bool) string {
	st := m.styles
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		var cell string
		switch c.id {
		case colMark:
			if selected {
				cell = st.Current.Render("▶")
			}
		case colCandidate:
			name := r.Candidate
			if name == "" {
				name = r.SessionID
			}
			cell = pad(readingCell(name, c.w), c.w)
			if selected {
				cell = st.Current.Render(cell)
			}
		case colExam:
			cell = readingCell(r.Title, c.w)
		case colNode:
			if r.NodeID != "" {
				cell = fmt.Sprintf("%d/%d %s", r.NodeIndex, r.NodeTotal, r.NodeID)
			}
		case colNodeTime:
			cell = m.clock(r.NodeClock(now))
		case colExamTime:
			cell = m.clock(r.ExamClock(now))
		case colInput:
			cell = r.Input
			if r.Room != "" {
				cell = "room"
			}
		case colExaminer:
			cell = r.Examiner
		case colCost:
			// "?" when unknown (a model without a price, or calls with no usage): the detail
			// below says why.
			cell = m.board.Cost(r).Short()
		case colState:
			cell = m.stateCell(r.State)
		case colAlerts:
			cell = m.badges(r.Alerts, c.w)
		case colLast:
			if r.LastCandidate != "" {
				cell = st.Candidate.Render("“") + readingCell(r.LastCandidate, c.w-2) + st.Candidate.Render("”")
			}
		}
		b.WriteString(pad(cell, c.w))
	}
	return b.String()
}

func (m *Model) stateCell(s monitor.RowState) string {
	st := m.styles
	txt := shortState(s)
	switch s {
	case monitor.RowInterrupted:
		return st.Bad.Render(txt)
	case monitor.RowPaused, monitor.RowAwaiting:
		return st.Warn.Render(txt)
	case monitor.RowInProgress:
		return st.Good.Render(txt)
	}
	return st.Muted.Render(txt)
}

// severe kinds are shown in the alarm colour, the rest in the warning colour.
func severe(k monitor.AlertKind) bool {
	return k == monitor.AlertDistress || k == monitor.AlertInterrupted || k == monitor.AlertStalled
}

// badges fits as many badges as w allows, then "+n".
func (m *Model) badges(alerts []monitor.Alert, w int) string {
	var parts []string
	used := 0
	for i, a := range alerts {
		b := a.Kind.Badge()
		rest := len(alerts) - i - 1
		need := len(b)
		if used > 0 {
			need++
		}
		reserve := 0
		if rest > 0 {
			reserve = len(fmt.Sprintf(" +%d", rest))
		}
		if used+need+reserve > w {
			parts = append(parts, m.styles.Bad.Render(fmt.Sprintf("+%d", len(alerts)-i)))
			break
		}
		st := m.styles.Warn
		if severe(a.Kind) {
			st = m.styles.Bad
		}
		if m.opts.noColor {
			st = st.Reverse(severe(a.Kind))
		}
		parts = append(parts, st.Render(b))
		used += need
	}
	return strings.Join(parts, " ")
}

// clock shows elapsed/budget, coloured as the budget runs out.
func (m *Model) clock(c monitor.Clock) string {
	txt := fmtDur(c.Elapsed)
	if c.Budget <= 0 {
		return txt
	}
	txt += "/" + fmtDur(c.Budget)
	switch f := c.Fraction(); {
	case f >= 1:
		return m.styles.Bad.Render(txt)
	case f >= 0.8:
		return m.styles.Warn.Render(txt)
	}
	return txt
}

func fmtDur(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
