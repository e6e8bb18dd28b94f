package controlroom

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/monitor"
)

// View renders the frame: the list, or the open exam's console.
func (m *Model) View() tea.View {
	if m.console != nil {
		v := m.console.View()
		v.WindowTitle = "examtui monitor — " + m.consoleID
		return v
	}
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "examtui monitor"
	return v
}

// detailHeight is the selected exam's detail box, border included.
func (m *Model) detailHeight() int {
	switch {
	case m.height >= 50:
		return 10
	case m.height >= 30:
		return 8
	}
	return 6
}

// listHeight is how many list lines fit (header included).
func (m *Model) listHeight() int { return max(m.height-2-m.detailHeight(), 1) }

// Render draws the list screen as exactly height lines.
func (m *Model) Render() string {
	if m.console != nil {
		return m.console.Render()
	}
	if m.width <= 0 || m.height <= 0 {
		return "starting…"
	}
	now := m.opts.now()
	lines := make([]string, 0, m.height)
	lines = append(lines, m.statusLine(now))
	if m.showHelp {
		body := strings.Split(m.help.FullHelpView(m.keys.FullHelp()), "\n")
		body = append([]string{"", m.styles.Title.Render(" keys — any key closes this")}, body...)
		for len(body) < m.height-2 {
			body = append(body, "")
		}
		lines = append(lines, body[:m.height-2]...)
	} else {
		lines = append(lines, m.listLines(now, m.listHeight())...)
		lines = append(lines, m.detailLines(now, m.detailHeight())...)
	}
	lines = append(lines, m.footerLine())
	for i, l := range lines {
		lines[i] = fit(l, m.width)
	}
	return strings.Join(lines[:m.height], "\n")
}

// fit cuts or pads a styled line to exactly w cells.
func fit(s string, w int) string {
	if lipgloss.Width(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if pad := w - lipgloss.Width(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

func (m *Model) statusLine(now time.Time) string {
	st := m.styles
	live, finished := m.board.Rows(m.opts.since)
	alerts := 0
	for _, r := range live {
		alerts += len(r.Alerts)
	}
	waiting := m.board.Waiting()
	for _, w := range waiting {
		if w.Alert != nil {
			alerts++
		}
	}
	sep := st.Muted.Render(" · ")
	parts := []string{st.Status.Render(" examtui monitor"),
		st.StatusKey.Render("live ") + st.StatusValue.Render(fmt.Sprint(len(live))),
		st.StatusKey.Render("finished today ") + st.StatusValue.Render(fmt.Sprint(len(finished)))}
	if len(waiting) > 0 {
		parts = append(parts, st.StatusKey.Render(waitingState+" ")+st.StatusWarn.Render(fmt.Sprint(len(waiting))))
	}
	if n, ok := m.board.AwaitingMarks(); ok && n > 0 {
		parts = append(parts, st.StatusKey.Render("to mark ")+st.StatusValue.Render(fmt.Sprint(n)))
	}
	if n, ok := m.board.FailedPassbacks(); ok && n > 0 {
		parts = append(parts, st.Bad.Render(fmt.Sprintf("gradebook refused %d (marks queue)", n)))
	}
	if alerts > 0 {
		word := "alerts"
		if alerts == 1 {
			word = "alert"
		}
		parts = append(parts, st.Bad.Render(fmt.Sprintf("%d %s", alerts, word)))
	} else {
		parts = append(parts, st.Good.Render("no alerts"))
	}
	if m.opts.readOnly {
		parts = append(parts, st.StatusWarn.Render("read-only"))
	}
	if m.opts.label != "" {
		parts = append(parts, st.StatusKey.Render("store ")+st.StatusValue.Render(m.opts.label))
	}
	left := strings.Join(parts, sep)
	clock := st.Muted.Render(now.Local().Format("15:04:05") + " ")
	if pad := m.width - lipgloss.Width(left) - lipgloss.Width(clock); pad > 0 {
		return left + strings.Repeat(" ", pad) + clock
	}
	return left
}

func (m *Model) footerLine() string {
	switch {
	case m.filtering:
		return m.filter.View()
	case m.notice != "":
		return m.styles.Error.Render(" " + m.notice)
	case m.link != "":
		return textsafe.Line(m.link)
	}
	h := m.help.ShortHelpView(m.keys.ShortHelp())
	if q := m.filter.Value(); q != "" {
		h = m.styles.Notice.Render(fmt.Sprintf(" filter %q (esc clears) ", q)) + h
	}
	return " " + h
}

// listLines draws the header and as many rows as fit, scrolled to keep the cursor in view.
func (m *Model) listLines(now time.Time, height int) []string {
	st := m.styles
	cols := layoutColumns(m.width)
	live, finished := m.visible()
	type line struct {
		text string
		row  *monitor.Row
	}
	var all []line
	// Rooms dispatched and not started are not exams: their own section, first (a candidate
	// may be waiting there with nothing happening), and not selectable (there is no console).
	if waiting := m.visibleWaiting(); len(waiting) > 0 {
		all = append(all, line{text: st.Title.Render(fmt.Sprintf(" DISPATCHED, NOT STARTED (%d)", len(waiting)))})
		for _, w := range waiting {
			all = append(all, line{text: m.waitingLine(cols, w, now)})
		}
	}
	all = append(all, line{text: st.Title.Render(fmt.Sprintf(" LIVE (%d)", len(live)))})
	if len(live) == 0 {
		all = append(all, line{text: st.Muted.Render("   no exam is running")})
	}
	for _, r := range live {
		all = append(all, line{row: r})
	}
	if len(finished) > 0 {
		all = append(all, line{text: st.Title.Render(fmt.Sprintf(" FINISHED TODAY (%d)", len(finished)))})
		for _, r := range finished {
			all = append(all, line{row: r})
		}
	}
	body := height - 1
	cur := 0
	for i, l := range all {
		if l.row != nil && l.row.SessionID == m.cursor {
			cur = i
		}
	}
	if cur < m.offset {
		m.offset = cur
	}
	if cur >= m.offset+body {
		m.offset = cur - body + 1
	}
	m.offset = min(m.offset, max(len(all)-body, 0))
	if cur == 1 || cur < body {
		m.offset = 0 // the section heading stays in view with the top rows
	}
	out := []string{st.Muted.Render(headerLine(cols))}
	for i := m.offset; i < len(all) && len(out) < height; i++ {
		l := all[i]
		if l.row == nil {
			out = append(out, l.text)
			continue
		}
		out = append(out, m.rowLine(cols, l.row, now, l.row.SessionID == m.cursor))
	}
	for len(out) < height {
		out = append(out, "")
	}
	return out
}
