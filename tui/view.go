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
	state := styledState(st, m.state)
	var replay, examiner, input, session, audio, readOnly string
	if m.opts.replay != nil {
		// Early in the line: what a replay is about comes before the details.
		replay = m.replayStatus()
	}
	if m.info.Examiner != "" {
		examiner = st.StatusKey.Render("examiner ") + st.StatusValue.Render(m.info.Examiner)
	}
	input = st.StatusKey.Render("input ") + st.StatusValue.Render(m.info.Input.String())
	if m.info.SessionID != "" {
		session = st.StatusKey.Render("session ") + st.StatusValue.Render(m.info.SessionID)
	}
	if m.haveAudio {
		audio = m.audioMeter()
	}
	if m.info.ReadOnly {
		readOnly = st.StatusWarn.Render("read-only")
	}
	// What gives way when the line is too narrow, in order: the title down to minTitle
	// cells, the examiner, the audio meter, the input, then the title altogether. The state,
	// the replay's position, read-only and the session id (what --resume needs) stay whole.
	// A part given up comes back when another's going made room for it.
	const minTitle = 16
	order := []*string{&examiner, &audio, &input}
	shown := make([]string, len(order))
	for i, p := range order {
		shown[i] = *p
	}
	width := func() int {
		n := 0
		for _, p := range []string{state, replay, examiner, input, session, audio, readOnly} {
			if p != "" {
				n += ansi.StringWidth(sep) + ansi.StringWidth(p)
			}
		}
		return n
	}
	for _, p := range order {
		if m.width-width() >= minTitle {
			break
		}
		*p = ""
	}
	for i := len(order) - 1; i >= 0; i-- {
		if *order[i] == "" && shown[i] != "" {
			*order[i] = shown[i]
			if m.width-width() < minTitle {
				*order[i] = ""
			}
		}
	}
	var parts []string
	for _, p := range []string{state, replay, examiner, input, session, audio, readOnly} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	title := " " + visual.Line(m.info.Title)
	switch room := m.width - width(); {
	case room < 4:
		title = ""
	case ansi.StringWidth(title) > room:
		title = ansi.Truncate(title, room, "…")
	}
	line := strings.Join(parts, sep)
	if title != "" {
		line = st.Status.Render(title) + sep + line
	} else {
		line = " " + line
	}
	return fit(line, m.width)
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
	letters := "Letters (↑/k ↓/j g G q) act only when a pane has focus. In an empty answer line ? opens this help; end follows the transcript."
	if m.info.ReadOnly {
		letters = "Letters (↑/k ↓/j g G ? q) scroll and navigate the focused pane."
	}
	var notes []string
	for _, note := range []string{letters, "Press ? , f1 or esc to close."} {
		for _, l := range wrapPlain(note, w-2) {
			notes = append(notes, m.styles.Muted.Render(l))
		}
	}
	// The keys get the rows the notes and the borders leave, so the close note stays on a
	// short screen.
	content := m.helpColumns(m.fullHelp(), w-2, h-2-len(notes)-1)
	content = append(content, "")
	content = append(content, notes...)
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
		mode := st.Current.Render("[" + m.adminMode.String() + "]")
		return fitFirst(m.width,
			st.Key.Render("Say to the candidate, word for word ")+mode+st.Muted.Render("  tab: an instruction instead · enter: send · esc: cancel"),
			st.Key.Render("Say, word for word ")+mode+st.Muted.Render("  tab: instruction · enter: send · esc: cancel"))
	case m.adminOpen:
		mode := st.Current.Render("[" + m.adminMode.String() + "]")
		return fitFirst(m.width,
			st.Key.Render("Examiner instruction (never read out) ")+mode+st.Muted.Render("  tab: immediate/queued · enter: send · esc: cancel"),
			st.Key.Render("Instruction, never read out ")+mode+st.Muted.Render("  tab: mode · enter: send · esc: cancel"))
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
// holds the exam controls. When the rows exceed maxRows, the longest group is cut in two
// columns, as often as that makes the help shorter.
func (m *Model) helpColumns(groups [][]key.Binding, width, maxRows int) []string {
	var enabled [][]key.Binding
	for _, g := range groups {
		var keep []key.Binding
		for _, b := range g {
			if b.Enabled() {
				keep = append(keep, b)
			}
		}
		if len(keep) > 0 {
			enabled = append(enabled, keep)
		}
	}
	best := m.packHelp(enabled, width)
	for len(best) > maxRows {
		i := 0
		for j, g := range enabled {
			if len(g) > len(enabled[i]) {
				i = j
			}
		}
		g := enabled[i]
		if len(g) < 4 {
			break
		}
		half := (len(g) + 1) / 2
		split := slices.Concat(enabled[:i:i], [][]key.Binding{g[:half], g[half:]}, enabled[i+1:])
		out := m.packHelp(split, width)
		if len(out) >= len(best) {
			break
		}
		enabled, best = split, out
	}
	return best
}

// packHelp puts groups side by side while they fit width, starting a new row when not.
func (m *Model) packHelp(groups [][]key.Binding, width int) []string {
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
