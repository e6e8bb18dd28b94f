package tui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
)

// Shade is one palette colour with its variants for light and dark backgrounds.
type Shade struct{ Light, Dark string }

func (s Shade) pick(dark bool) color.Color {
	if dark {
		return lipgloss.Color(s.Dark)
	}
	return lipgloss.Color(s.Light)
}

// Palette holds the few colours the console uses. Styles are derived from it, so a theme is one
// Palette.
type Palette struct {
	Accent, Candidate, Examiner, Good, Warn, Bad, Muted, Border Shade
}

// DefaultPalette is the console's theme.
func DefaultPalette() Palette {
	return Palette{
		Accent:    Shade{Light: "#5A3FC0", Dark: "#B4A0FF"},
		Candidate: Shade{Light: "#006D8F", Dark: "#5FD7FF"},
		Examiner:  Shade{Light: "#7A4A00", Dark: "#FFD787"},
		Good:      Shade{Light: "#1E7B34", Dark: "#87D787"},
		Warn:      Shade{Light: "#9A6700", Dark: "#FFAF5F"},
		Bad:       Shade{Light: "#B3261E", Dark: "#FF6B6B"},
		Muted:     Shade{Light: "#6E6E6E", Dark: "#8A8A8A"},
		Border:    Shade{Light: "#B0B0B0", Dark: "#4E4E4E"},
	}
}

// Styles is the one semantic style set every pane renders with. Built by NewStyles; with
// noColor it carries no colours at all and leans on bold, faint, italic and reverse instead.
type Styles struct {
	NoColor bool
	Dark    bool

	Title, TitleFocused     lipgloss.Style
	Border, BorderFocused   lipgloss.Style
	Status, StatusKey       lipgloss.Style
	StatusValue, StatusWarn lipgloss.Style

	Candidate, Examiner, System lipgloss.Style
	Interim, Intercepted        lipgloss.Style
	Confidence, LowConfidence   lipgloss.Style

	Signal, Level, Excerpt     lipgloss.Style
	Rejected, Misconception    lipgloss.Style
	BarFull, BarEmpty, BarOver lipgloss.Style

	Good, Warn, Bad, Muted, Current lipgloss.Style
	Notice, Error, Prompt, Key      lipgloss.Style

	// Help and Input style the bubbles components (the key help, the text inputs): bubbles'
	// own styles for the background, with the prompt from the palette; none without colour.
	Help  help.Styles
	Input textinput.Styles
}

// NewStyles builds the semantic styles from a palette for a light or dark background.
func NewStyles(p Palette, dark, noColor bool) Styles {
	base := lipgloss.NewStyle()
	fg := func(s Shade) lipgloss.Style {
		if noColor {
			return base
		}
		return base.Foreground(s.pick(dark))
	}
	st := Styles{NoColor: noColor, Dark: dark}
	st.Title = fg(p.Muted).Bold(true)
	st.TitleFocused = fg(p.Accent).Bold(true).Reverse(noColor)
	st.Border = fg(p.Border)
	st.BorderFocused = fg(p.Accent)
	st.Status = base.Bold(true).Reverse(noColor)
	if !noColor {
		st.Status = base.Bold(true).Foreground(p.Accent.pick(dark))
	}
	st.StatusKey = fg(p.Muted)
	st.StatusValue = base.Bold(true)
	st.StatusWarn = fg(p.Warn).Bold(true)

	st.Candidate = fg(p.Candidate).Bold(true)
	st.Examiner = fg(p.Examiner).Bold(true)
	st.System = fg(p.Muted).Italic(true)
	st.Interim = fg(p.Muted).Italic(true)
	st.Intercepted = fg(p.Warn)
	st.Confidence = fg(p.Muted)
	st.LowConfidence = fg(p.Bad).Bold(true)

	st.Signal = fg(p.Accent).Bold(true)
	st.Level = fg(p.Good)
	st.Excerpt = base
	st.Rejected = fg(p.Muted).Faint(true)
	st.Misconception = fg(p.Bad)
	st.BarFull = fg(p.Good)
	st.BarEmpty = fg(p.Border)
	st.BarOver = fg(p.Bad)

	st.Good = fg(p.Good)
	st.Warn = fg(p.Warn).Bold(true)
	st.Bad = fg(p.Bad).Bold(true)
	st.Muted = fg(p.Muted)
	st.Current = fg(p.Accent).Bold(true).Reverse(noColor)
	st.Notice = fg(p.Accent)
	st.Error = fg(p.Bad).Bold(true)
	st.Prompt = fg(p.Candidate).Bold(true)
	st.Key = fg(p.Accent).Bold(true)

	st.Help = help.DefaultStyles(dark)
	st.Input = textinput.DefaultStyles(dark)
	if noColor {
		st.Help = help.Styles{}
		st.Input = textinput.Styles{}
	}
	st.Input.Cursor.Blink = false // a steady cursor keeps frames (and goldens) stable
	st.Input.Focused.Prompt = st.Prompt
	return st
}
