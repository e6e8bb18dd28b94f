package mdterm

import "charm.land/lipgloss/v2"

// styles holds the lipgloss styles for one Render call; with colour off every style is
// the zero style, which renders text unchanged.
type styles struct {
	color   bool
	h1, h2  lipgloss.Style
	h3      lipgloss.Style
	strong  lipgloss.Style
	em      lipgloss.Style
	code    lipgloss.Style
	header  lipgloss.Style
	border  lipgloss.Style
	rule    lipgloss.Style
	bullets lipgloss.Style
}

// Basic ANSI colours (not hex) so a 16-colour terminal shows them as intended.
func newStyles(color bool) styles {
	if !color {
		return styles{}
	}
	return styles{
		color:   true,
		h1:      lipgloss.NewStyle().Bold(true).Foreground(lipgloss.BrightMagenta),
		h2:      lipgloss.NewStyle().Bold(true).Foreground(lipgloss.BrightCyan),
		h3:      lipgloss.NewStyle().Bold(true).Foreground(lipgloss.BrightBlue),
		strong:  lipgloss.NewStyle().Bold(true),
		em:      lipgloss.NewStyle().Italic(true),
		code:    lipgloss.NewStyle().Foreground(lipgloss.BrightYellow),
		header:  lipgloss.NewStyle().Bold(true),
		border:  lipgloss.NewStyle().Faint(true),
		rule:    lipgloss.NewStyle().Faint(true),
		bullets: lipgloss.NewStyle().Foreground(lipgloss.BrightCyan),
	}
}

// render styles s only when colour is on, so plain output is byte-for-byte the text.
func (st styles) render(s lipgloss.Style, text string) string {
	if !st.color || text == "" {
		return text
	}
	return s.Render(text)
}

// inline styles a run of text carrying the given inline marks.
func (st styles) inline(m mark, text string) string {
	if !st.color || text == "" || m == 0 {
		return text
	}
	s := lipgloss.NewStyle()
	if m&markStrong != 0 {
		s = s.Bold(true)
	}
	if m&markEm != 0 {
		s = s.Italic(true)
	}
	if m&markCode != 0 {
		s = s.Inherit(st.code)
	}
	return s.Render(text)
}
