package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/internal/visual"
	"github.com/examtui/examtui/runtime"
)

// View renders the frame and declares the terminal features the console uses.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "examtui — " + m.info.Title
	return v
}

// Render draws the whole screen as a string of exactly height lines.
func (m *Model) Render() string {
	if m.width <= 0 || m.height <= 0 {
		return "starting…"
	}
	lines := make([]string, 0, m.height)
	lines = append(lines, m.statusLine())
	lines = append(lines, m.body()...)
	lines = append(lines, m.footerLine())
	if !m.info.ReadOnly {
		lines = append(lines, m.inputLine())
	}
	for len(lines) < m.height {
		lines = append(lines, "")
	}
	return strings.Join(lines[:m.height], "\n")
}

func (m *Model) statusLine() string {
	st := m.styles
	sep := st.Muted.Render(" · ")
	parts := []string{"", styledState(st, m.state)}
	if m.opts.replay != nil {
		// Early in the line: what a replay is about comes before the details.
		parts = append(parts, m.replayStatus())
	}
	if m.info.Examiner != "" {
		parts = append(parts, st.StatusKey.Render("examiner ")+st.StatusValue.Render(m.info.Examiner))
	}
	parts = append(parts, st.StatusKey.Render("input ")+st.StatusValue.Render(m.info.Input.String()))
	if m.info.SessionID != "" {
		parts = append(parts, st.StatusKey.Render("session ")+st.StatusValue.Render(m.info.SessionID))
	}
	if m.haveAudio {
		parts = append(parts, m.audioMeter())
	}
	if m.info.ReadOnly && m.opts.replay == nil { // a replay says so already
		parts = append(parts, st.StatusWarn.Render("read-only"))
	}
	// The title gives way first: the session id after it is what --resume needs. It keeps at
	// least minTitle cells so the exam stays recognisable.
	const minTitle = 16
	title := " " + visual.Line(m.info.Title)
	rest := ansi.StringWidth(strings.Join(parts, sep))
	if room := max(m.width-rest, minTitle); ansi.StringWidth(title) > room {
		title = ansi.Truncate(title, room, "…")
	}
	parts[0] = st.Status.Render(title)
	return fit(strings.Join(parts, sep), m.width)
}

func (m *Model) audioMeter() string {
	st := m.styles
	s := st.StatusKey.Render("audio ") + bar(st, m.audio.Level, 8)
	if m.audio.State != "" {
		style := st.Muted
		if m.audio.State == "speech" {
			style = st.Good
		}
		s += " " + style.Render(m.audio.State)
	}
	return s
}

// paneContent renders one pane at the size the layout gave it: its title, its badge (read
// before the view, which may clamp the scroll position the badge reports) and its lines.
func paneContent(p pane) (title, badge string, lines []string) {
	title, badge = p.title(), p.badge()
	return title, badge, p.view()
}

// body composes the panes into bodyHeight lines. Panes tile the body in columns, so each row is
// the concatenation of the pieces that cross it, left to right.
func (m *Model) body() []string {
	h := m.bodyHeight()
	if m.showHelp {
		return m.helpOverlay(h)
	}
	if m.showGraph && m.graph != nil {
		return m.graphOverlay(h)
	}
	rows := make([]strings.Builder, h)
	cols := make([]int, h)
	ids := make([]PaneID, 0, len(m.rects))
	for id := range m.rects {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := m.rects[ids[i]], m.rects[ids[j]]
		if a.x != b.x {
			return a.x < b.x
		}
		return a.y < b.y
	})
	for _, id := range ids {
		r := m.rects[id]
		title, badge, content := paneContent(m.panes[id])
		if len(m.single) > 1 {
			// One pane at a time: say where it sits among the others (the footer names tab).
			badge = strings.TrimSpace(fmt.Sprintf("[%d/%d] %s", slices.Index(m.single, id)+1, len(m.single), badge))
		}
		for i, l := range box(m.styles, title, badge, m.focus == id, r.w, r.h, content) {
			y := r.y - 1 + i
			if y < 0 || y >= h {
				continue
			}
			if cols[y] < r.x {
				rows[y].WriteString(strings.Repeat(" ", r.x-cols[y]))
			}
			rows[y].WriteString(l)
			cols[y] = r.x + r.w
		}
	}
	out := make([]string, h)
	for i := range rows {
		out[i] = rows[i].String()
	}
	return out
}

func (m *Model) helpOverlay(h int) []string {
	w := min(m.width, 110)
	content := m.helpColumns(m.fullHelp(), w-2)
	letters := "Letters (↑/k ↓/j g G ? q) act only when a pane has focus; the input line keeps them."
	if m.info.ReadOnly {
		letters = "Letters (↑/k ↓/j g G ? q) scroll and navigate the focused pane."
	}
	content = append(content, "")
	for _, note := range []string{letters, "Press ? , f1 or esc to close."} {
		for _, l := range wrapPlain(note, w-2) {
			content = append(content, m.styles.Muted.Render(l))
		}
	}
	return m.overlay("Help", "", w, h, content)
}

// overlay is a focused box w cells wide around content, centred in the terminal's width and
// padded to h lines: the help and the exam graph.
func (m *Model) overlay(title, badge string, w, h int, content []string) []string {
	lines := box(m.styles, title, badge, true, w, min(h, len(content)+2), content)
	pad := strings.Repeat(" ", (m.width-w)/2)
	out := make([]string, 0, h)
	for _, l := range lines {
		out = append(out, pad+l)
	}
	for len(out) < h {
		out = append(out, "")
	}
	return out
}

func (m *Model) footerLine() string {
	st := m.styles
	switch {
	case m.confirm == confirmQuit:
		return fit(st.Warn.Render("Quit while the exam is running? The session journal keeps everything so far.")+
			st.Muted.Render("  y quit · n stay"), m.width)
	case m.confirm == confirmEnd:
		return fit(st.Warn.Render("End the exam now?")+st.Muted.Render("  y end exam · n cancel"), m.width)
	case m.adminOpen && m.adminMode == runtime.AdminSay:
		return fit(st.Key.Render("Say to the candidate, word for word ")+st.Current.Render("["+m.adminMode.String()+"]")+
			st.Muted.Render("  tab: an instruction instead · enter: send · esc: cancel"), m.width)
	case m.adminOpen:
		return fit(st.Key.Render("Examiner instruction (never read out) ")+st.Current.Render("["+m.adminMode.String()+"]")+
			st.Muted.Render("  tab: immediate/queued · enter: send · esc: cancel"), m.width)
	}
	hint := m.help.ShortHelpView(m.shortHelp())
	if m.notice == "" {
		return fit(hint, m.width)
	}
	ns := st.Notice
	if m.noticeErr {
		ns = st.Error
	}
	return fit(ns.Render(m.notice)+"   "+hint, m.width)
}

func (m *Model) inputLine() string {
	if m.adminOpen {
		return fit(m.adminInput.View(), m.width)
	}
	return fit(m.input.View(), m.width)
}

// helpColumns lays the help groups out side by side, moving whole groups to a further row
// when the screen is too narrow for all of them: truncating would hide the last group, which
// holds the exam controls.
func (m *Model) helpColumns(groups [][]key.Binding, width int) []string {
	free := m.help
	free.SetWidth(0) // measure without the help model's own truncation
	var out []string
	var row [][]key.Binding
	flush := func() {
		if len(row) == 0 {
			return
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, strings.Split(free.FullHelpView(row), "\n")...)
		row = nil
	}
	for _, g := range groups {
		if len(row) > 0 && lipgloss.Width(free.FullHelpView(append(slices.Clip(row), g))) > width {
			flush()
		}
		row = append(row, g)
	}
	flush()
	return out
}
