package markconsole

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/internal/visual"
	"github.com/examtui/examtui/tui"
)

// transcriptPane shows the session's turns, scrolled to the selected evidence's turn, which it
// highlights. Wrapped rows are cached per width; a frame styles only the rows it shows.
type transcriptPane struct {
	st            *tui.Styles
	width, height int
	lines         []Line
	start         time.Time
	index         map[string]int // segment id → line
	rows          []trow         // wrapped at width
	top           int            // first row shown
	focused       int            // the highlighted line, -1 none
}

// trow is one wrapped row: the head (id, time, speaker) only on a line's first row.
type trow struct {
	line            int
	id, at, speaker string
	body            string
}

func (p *transcriptPane) setLines(s *Sheet) {
	p.lines, p.start, p.focused, p.top = s.Lines, s.StartedAt, -1, 0
	p.index = make(map[string]int, len(s.Lines))
	for i, l := range s.Lines {
		p.index[l.SegmentID] = i
	}
	p.rows = nil
}

func (p *transcriptPane) SetSize(w, h int) {
	if w != p.width {
		p.rows = nil
	}
	p.width, p.height = w, h
}

// headWidth is the width of "seg-0001 12:34 candidate  ".
const headWidth = 8 + 1 + 5 + 1 + 9 + 2

func (p *transcriptPane) wrap() {
	if p.rows != nil || p.width <= 0 {
		return
	}
	bodyW := max(p.width-headWidth, 10)
	p.rows = make([]trow, 0, len(p.lines)*2)
	for i, l := range p.lines {
		at := ""
		if !p.start.IsZero() && !l.At.IsZero() {
			at = clock(l.At.Sub(p.start))
		}
		text := textsafe.Line(l.Text)
		for j, part := range strings.Split(ansi.Wrap(text, bodyW, " -"), "\n") {
			r := trow{line: i, body: visual.Line(part)}
			if j == 0 {
				r.id, r.at, r.speaker = l.SegmentID, at, l.Speaker
			}
			p.rows = append(p.rows, r)
		}
	}
}

// focus highlights a segment's turn and scrolls it into view, a little below the top so the
// examiner's question before it shows too.
func (p *transcriptPane) focus(segment string) {
	i, ok := p.index[segment]
	if !ok {
		p.focused = -1
		return
	}
	p.focused = i
	p.wrap()
	for r, row := range p.rows {
		if row.line == i {
			p.top = max(r-2, 0)
			break
		}
	}
	p.clamp()
}

// at is when a segment's turn was said.
func (p *transcriptPane) at(segment string) (time.Time, bool) {
	i, ok := p.index[segment]
	if !ok || p.lines[i].At.IsZero() {
		return time.Time{}, false
	}
	return p.lines[i].At, true
}

func (p *transcriptPane) scrollBy(n int) { p.top += n; p.clamp() }

func (p *transcriptPane) clamp() {
	p.top = min(p.top, max(len(p.rows)-p.height, 0))
	p.top = max(p.top, 0)
}

func (p *transcriptPane) badge() string {
	if len(p.lines) == 0 {
		return ""
	}
	return ansi.Strip(p.st.Muted.Render(itoa(len(p.lines)) + " turns"))
}

func (p *transcriptPane) View() []string {
	p.wrap()
	if len(p.lines) == 0 {
		return []string{p.st.Muted.Render("no transcript")}
	}
	out := make([]string, 0, p.height)
	for r := p.top; r < len(p.rows) && len(out) < p.height; r++ {
		row := p.rows[r]
		head := strings.Repeat(" ", headWidth)
		if row.id != "" {
			head = padRight(row.id, 8) + " " + padRight(row.at, 5) + " " + padRight(row.speaker, 9) + "  "
		}
		if row.line == p.focused {
			out = append(out, p.st.Current.Render(head+row.body))
			continue
		}
		who := p.st.Examiner
		if row.speaker == "candidate" || (row.id == "" && p.lines[row.line].Speaker == "candidate") {
			who = p.st.Candidate
		}
		if row.id != "" {
			head = p.st.Muted.Render(padRight(row.id, 8)+" "+padRight(row.at, 5)+" ") + who.Render(padRight(row.speaker, 9)) + "  "
		}
		out = append(out, head+row.body)
	}
	return out
}

func padRight(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}
