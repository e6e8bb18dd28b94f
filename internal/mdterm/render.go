package mdterm

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// renderHeading underlines levels 1 and 2 so they stand out without colour too.
func renderHeading(b block, width int, st styles) string {
	segs := parseInline(b.lines[0])
	var hs = st.h3
	rule := ""
	switch b.level {
	case 1:
		hs, rule = st.h1, "═"
	case 2:
		hs, rule = st.h2, "─"
	}
	// Headings are styled as a whole; inner marks only matter for code colour.
	for i := range segs {
		segs[i].mark &^= markStrong
	}
	lines := wrap(segs, width, "", "", styles{})
	w := 0
	for i, l := range lines {
		w = max(w, ansi.StringWidth(l))
		lines[i] = st.render(hs, l)
	}
	if rule != "" && w > 0 {
		lines = append(lines, st.render(st.rule, strings.Repeat(rule, w)))
	}
	return strings.Join(lines, "\n")
}

// renderList hangs wrapped item text under the first character after the marker.
func renderList(b block, width int, st styles) string {
	mw := 0
	for _, m := range b.markers {
		mw = max(mw, ansi.StringWidth(m))
	}
	var out []string
	for i, item := range b.items {
		m := b.markers[i]
		pad := strings.Repeat(" ", mw-ansi.StringWidth(m))
		first := pad + st.render(st.bullets, m) + " "
		indent := strings.Repeat(" ", mw+1)
		out = append(out, wrap(parseInline(item), width, first, indent, st)...)
	}
	return strings.Join(out, "\n")
}
