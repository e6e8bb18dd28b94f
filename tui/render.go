package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/examtui/examtui/internal/visual"
)

// Border runes: light for a pane, heavy for the focused one, so focus stays visible without
// colour (NO_COLOR).
type borderRunes struct{ tl, tr, bl, br, h, v string }

var (
	lightBorder = borderRunes{"┌", "┐", "└", "┘", "─", "│"}
	heavyBorder = borderRunes{"┏", "┓", "┗", "┛", "━", "┃"}
)

// box draws a w×h pane with the title set in its top border. Body lines are padded or cut to
// the inner width; missing lines are blank. It writes straight into a builder rather than
// going through lipgloss borders, because this runs for every pane on every frame.
func box(st *Styles, title, badge string, focused bool, w, h int, body []string) []string {
	if w < 2 || h < 2 {
		return nil
	}
	b, bs, ts := lightBorder, st.Border, st.Title
	if focused {
		b, bs, ts = heavyBorder, st.BorderFocused, st.TitleFocused
	}
	inner := w - 2
	out := make([]string, 0, h)

	// Top border: ┌ Title badge ───┐
	label := " " + title + " "
	if badge != "" {
		label += badge + " "
	}
	label = ansi.Truncate(label, max(inner-1, 0), "…")
	fill := inner - 1 - ansi.StringWidth(label)
	var top strings.Builder
	top.WriteString(bs.Render(b.tl + b.h))
	if inner >= 1 {
		top.WriteString(ts.Render(label))
		if fill > 0 {
			top.WriteString(bs.Render(strings.Repeat(b.h, fill)))
		}
	}
	top.WriteString(bs.Render(b.tr))
	out = append(out, top.String())

	side := bs.Render(b.v)
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, side+fit(line, inner)+side)
	}
	out = append(out, bs.Render(b.bl+strings.Repeat(b.h, inner)+b.br))
	return out
}

// fit pads or truncates a (possibly styled) line to exactly w cells.
func fit(s string, w int) string {
	sw := ansi.StringWidth(s)
	switch {
	case sw == w:
		return s
	case sw < w:
		return s + strings.Repeat(" ", w-sw)
	default:
		t := ansi.Truncate(s, w, "…")
		if tw := ansi.StringWidth(t); tw < w {
			t += strings.Repeat(" ", w-tw)
		}
		return t
	}
}

// fitFirst is the first of alts (longest first) that fits w cells whole, else the last one cut
// to w: a hint keeps every part it names on a narrow screen by saying it shorter.
func fitFirst(w int, alts ...string) string {
	for _, a := range alts {
		if ansi.StringWidth(a) <= w {
			return fit(a, w)
		}
	}
	return fit(alts[len(alts)-1], w)
}

// bar draws a horizontal gauge of width cells filled to frac (0..1; above 1 is drawn full in
// the over style).
func bar(st *Styles, frac float64, width int) string {
	if width <= 0 {
		return ""
	}
	if math.IsNaN(frac) || frac < 0 {
		frac = 0
	}
	full := st.BarFull
	if frac > 1 {
		frac, full = 1, st.BarOver
	}
	n := int(math.Round(frac * float64(width)))
	return full.Render(strings.Repeat("█", n)) + st.BarEmpty.Render(strings.Repeat("░", width-n))
}

// mmss formats a duration as mm:ss (h:mm:ss past an hour); negative durations clamp to zero.
func mmss(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// span is a piece of text with its style.
type span struct {
	text  string
	style lipgloss.Style
}

// wrapPrefixed wraps "prefix + text" with continuation lines indented by indent cells, then
// styles the prefix spans on the first line. Styling after wrapping keeps escape codes out of
// the wrapper and the width arithmetic exact.
func wrapPrefixed(prefix []span, text string, textStyle *lipgloss.Style, width, indent int) []string {
	if width <= indent+1 {
		indent = 0
	}
	var plain strings.Builder
	for _, sp := range prefix {
		plain.WriteString(sp.text)
	}
	pre := plain.String()
	lines := wrapHanging(pre+text, width, width-indent)
	pad := strings.Repeat(" ", indent)
	for i, l := range lines {
		body := l
		var head strings.Builder
		if i == 0 && strings.HasPrefix(l, pre) {
			for _, sp := range prefix {
				head.WriteString(sp.style.Render(sp.text))
			}
			body = l[len(pre):]
		}
		// The text is its own paragraph, apart from its label: an Arabic line reads from its
		// right whatever the "Candidate: " before it.
		body = visual.Line(body)
		if textStyle != nil && body != "" {
			body = textStyle.Render(body)
		}
		if i > 0 {
			head.WriteString(pad)
		}
		lines[i] = head.String() + body
	}
	return lines
}

// clockOf formats an event time for a pane's time column.
func clockOf(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.UTC().Format("15:04:05")
}

// oneLine collapses whitespace so a multi-line text fits a single row.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// plural counts n things: "1 turn", "2 turns".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
