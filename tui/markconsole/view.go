package markconsole

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/tui"
)

// View renders the frame.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "examtui mark"
	return v
}

// layout sizes the panes: criteria on the left, the detail over the transcript on the right.
func (m *Model) layout() {
	body := max(m.height-2, 0)
	left := m.leftWidth()
	right := max(m.width-left, 0)
	m.criteria.SetSize(max(left-2, 0), max(body-2, 0))
	dh := m.detailHeight(body)
	m.detail.SetSize(max(right-2, 0), max(dh-2, 0))
	m.transcript.SetSize(max(right-2, 0), max(body-dh-2, 0))
	m.transcript.clamp()
}

func (m *Model) leftWidth() int { return min(max(m.width*3/10, 24), 44) }

func (m *Model) detailHeight(body int) int { return max(body*6/10, 6) }

// Render draws the frame as exactly height lines of width cells.
func (m *Model) Render() string {
	if m.width <= 0 || m.height <= 0 {
		return "starting…"
	}
	lines := make([]string, 0, m.height)
	lines = append(lines, tui.Fit(m.statusLine(), m.width))
	body := m.height - 2
	var boxed map[int]bool // lines drawn by the boxes, already the frame's width
	switch {
	case m.showHelp:
		h := strings.Split(m.help.FullHelpView(m.keys.FullHelp()), "\n")
		lines = append(lines, "", m.styles.Title.Render(" keys — any key closes this"))
		lines = append(lines, h...)
	case m.sheet == nil || m.sheet.Marking == nil:
		msg := "loading…"
		switch {
		case m.done:
			msg = "nothing left to mark"
		case m.sheet != nil:
			msg = "this session's exam has no marking scheme"
		case m.busy == "" && m.failed:
			msg = "could not open the session"
		}
		lines = append(lines, "", " "+m.styles.Muted.Render(msg))
	default:
		left := m.leftWidth()
		right := m.width - left
		detLines, sel := m.detail.View(m.detailData())
		// The detail takes what it needs, up to its share; the transcript the rest.
		dh := min(max(len(detLines)+2, 6), m.detailHeight(body))
		if inner := dh - 2; sel >= inner-1 && len(detLines) > inner {
			from := min(sel-1, len(detLines)-inner)
			detLines = detLines[from:]
		}
		m.transcript.SetSize(max(right-2, 0), max(body-dh-2, 0))
		m.transcript.clamp()
		crit := tui.Box(&m.styles, "Criteria", m.progress(), !m.editing, left, body, m.criteria.View(m.criterionRows()))
		det := tui.Box(&m.styles, "Evidence & proposals", "", false, right, dh, detLines)
		tr := tui.Box(&m.styles, "Transcript", m.transcript.badge(), false, right, body-dh, m.transcript.View())
		rightCol := append(det, tr...)
		if m.width == left+right && len(rightCol) == len(crit) {
			boxed = map[int]bool{}
			for i := range min(body, len(crit)) {
				boxed[len(lines)+i] = true
			}
		}
		for i := 0; i < body && i < len(crit); i++ {
			r := ""
			if i < len(rightCol) {
				r = rightCol[i]
			}
			lines = append(lines, crit[i]+r)
		}
	}
	for len(lines) < m.height-1 {
		lines = append(lines, "")
	}
	lines = append(lines[:m.height-1], m.footerLine())
	// The boxes' lines are already exactly as wide as the frame; measuring every cell again
	// would cost a frame a third of its time. Only the other lines are fitted.
	for i, l := range lines {
		if !boxed[i] {
			lines[i] = tui.Fit(l, m.width)
		}
	}
	return strings.Join(lines, "\n")
}

// progress is "2/4 marked"; once every criterion has the marker's level, the total those
// levels give and its grade (or result): "4/4 · 8/12 pass". Only this marker's levels count.
func (m *Model) progress() string {
	n, total := 0, 0
	mk := m.sheet.Marking
	for _, c := range mk.Criteria {
		if e, ok := m.sheet.Marks[c.ID]; ok {
			n++
			total += c.Marks(e.Level)
		}
	}
	if n < len(mk.Criteria) {
		return fmt.Sprintf("%d/%d marked", n, len(mk.Criteria))
	}
	r := marking.ResultOf(mk, total)
	verdict := r.Grade
	if verdict == "" && r.Passed != nil {
		verdict = map[bool]string{true: "pass", false: "fail"}[*r.Passed]
	}
	return strings.TrimSpace(fmt.Sprintf("%d/%d · %d/%d %s", n, len(mk.Criteria), total, mk.MaxTotal, verdict))
}

func (m *Model) criterionRows() []criterionRow {
	rows := make([]criterionRow, 0, len(m.sheet.Marking.Criteria))
	for i, c := range m.sheet.Marking.Criteria {
		r := criterionRow{title: textsafe.Line(c.Title), rule: m.proposedLevel(c.ID), yours: m.levels[c.ID], selected: i == m.sel}
		if pv := m.panelView(c.ID); pv != nil {
			r.panel, r.flagged = orDash(pv.Proposed), pv.Flagged
		}
		e, ok := m.sheet.Marks[c.ID]
		r.saved = ok && e.Level == r.yours
		if r.saved {
			r.outcome = m.sheet.Outcomes[c.ID]
		}
		rows = append(rows, r)
	}
	return rows
}

func (m *Model) detailData() detailData {
	c := m.current()
	e, ok := m.sheet.Marks[c.ID]
	return detailData{c: c, rule: m.proposal(c.ID), panel: m.panelView(c.ID), selected: m.evidence,
		level: m.levels[c.ID], entry: e, saved: ok}
}

func (m *Model) statusLine() string {
	st := m.styles
	sep := st.Muted.Render(" · ")
	parts := []string{st.Status.Render(" examtui mark")}
	if s := m.sheet; s != nil {
		parts = append(parts, st.StatusKey.Render("session ")+st.StatusValue.Render(s.SessionID))
		if s.Candidate != "" {
			parts = append(parts, st.StatusKey.Render("candidate ")+st.StatusValue.Render(textsafe.Line(s.Candidate)))
		}
		parts = append(parts, st.StatusKey.Render("marker ")+st.StatusValue.Render(textsafe.Line(s.Marker)))
		if s.Total > 0 {
			parts = append(parts, st.StatusKey.Render("queue ")+st.StatusValue.Render(fmt.Sprintf("%d of %d", s.Position, s.Total)))
		}
		if s.Locked {
			parts = append(parts, st.StatusWarn.Render("locked"))
		}
		if s.Recording == "" {
			parts = append(parts, st.Muted.Render("no recording"))
		}
	}
	if m.busy != "" {
		parts = append(parts, st.Notice.Render(m.busy+"…"))
	}
	return strings.Join(parts, sep)
}

func (m *Model) footerLine() string {
	switch {
	case m.editing:
		return m.input.View()
	case m.notice != "" && m.failed:
		return m.styles.Error.Render(" " + textsafe.Line(m.notice))
	case m.notice != "":
		return m.styles.Notice.Render(" " + textsafe.Line(m.notice))
	}
	return " " + m.help.ShortHelpView(m.keys.ShortHelp())
}
