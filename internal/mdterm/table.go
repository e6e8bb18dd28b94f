package mdterm

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// align is a GFM column alignment from the delimiter row.
type align uint8

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

func (a align) String() string {
	switch a {
	case alignCenter:
		return "center"
	case alignRight:
		return "right"
	}
	return "left"
}

// isDelimiterRow reports whether line is a GFM table delimiter row like "|---|:-:|".
func isDelimiterRow(line string) bool {
	cells := splitRow(strings.TrimSpace(line))
	if len(cells) == 0 {
		return false
	}
	for _, c := range cells {
		c = strings.TrimSpace(c)
		c = strings.TrimSuffix(strings.TrimPrefix(c, ":"), ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return strings.Contains(line, "|") || len(cells) > 1
}

func parseAligns(line string) []align {
	cells := splitRow(strings.TrimSpace(line))
	out := make([]align, len(cells))
	for i, c := range cells {
		c = strings.TrimSpace(c)
		l, r := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		switch {
		case l && r:
			out[i] = alignCenter
		case r:
			out[i] = alignRight
		}
	}
	return out
}

// splitRow splits a table row on unescaped pipes, dropping the optional outer pipes.
// "\|" stays escaped here and is unescaped by parseInline like any other escape.
func splitRow(t string) []string {
	var cells []string
	start := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, t[start:i])
			start = i + 1
		}
	}
	cells = append(cells, t[start:])
	if strings.HasPrefix(t, "|") {
		cells = cells[1:]
	}
	if len(cells) > 0 && strings.HasSuffix(t, "|") && !strings.HasSuffix(t, `\|`) {
		cells = cells[:len(cells)-1]
	}
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// Column separators; a row is " a │ b │ c" and the header rule "───┼───┼──".
const (
	colSep    = " │ "
	ruleCross = "┼"
	ruleLine  = "─"
)

// renderTable lays a table out as aligned columns under a header rule. When the
// natural width exceeds the terminal, the widest column is narrowed one cell at a time
// (down to its longest unbreakable piece first, so words are not cut while any column
// still has slack) and its cells wrap. lipgloss/v2/table was tried first, but its resizer narrows
// short columns such as times and percentages ("1 0 0 %") before the long text column.
func renderTable(b block, width int, st styles) string {
	header := splitRow(b.lines[0])
	cols := len(header)
	grid := make([][][]seg, 0, len(b.lines))
	for _, l := range b.lines {
		raw := splitRow(l)
		row := make([][]seg, cols)
		for j := 0; j < cols && j < len(raw); j++ {
			row[j] = parseInline(raw[j])
		}
		grid = append(grid, row)
	}
	widths := columnWidths(grid, cols, width-1-ansi.StringWidth(colSep)*(cols-1))

	var out []string
	for r, row := range grid {
		cells := make([][]string, cols)
		height := 1
		for j, segs := range row {
			hs := st
			if r == 0 && st.color {
				segs = withMark(segs, markStrong)
			}
			if len(segs) > 0 {
				cells[j] = wrap(segs, widths[j], "", "", hs)
			}
			height = max(height, len(cells[j]))
		}
		for k := 0; k < height; k++ {
			var line strings.Builder
			line.WriteByte(' ')
			for j := range cells {
				if j > 0 {
					line.WriteString(st.render(st.border, colSep))
				}
				text := ""
				if k < len(cells[j]) {
					text = cells[j][k]
				}
				var a align
				if j < len(b.aligns) {
					a = b.aligns[j]
				}
				line.WriteString(pad(text, widths[j], a))
			}
			out = append(out, strings.TrimRight(line.String(), " "))
		}
		if r == 0 {
			parts := make([]string, cols)
			for j, w := range widths {
				n := w + 2
				if j == cols-1 {
					n = w + 1
				}
				parts[j] = strings.Repeat(ruleLine, n)
			}
			out = append(out, st.render(st.border, strings.Join(parts, ruleCross)))
		}
	}
	// Past the point where every column is one cell wide nothing can fit; cut the
	// lines rather than let them spill over the width.
	for i, l := range out {
		if ansi.StringWidth(l) > width {
			out[i] = ansi.Truncate(l, width, "")
		}
	}
	return strings.Join(out, "\n")
}

// columnWidths returns each column's width so that together they fit avail cells.
func columnWidths(grid [][][]seg, cols, avail int) []int {
	natural := make([]int, cols)
	longest := make([]int, cols)
	for _, row := range grid {
		for j, segs := range row {
			ws := words(segs)
			n := len(ws) - 1
			for _, w := range ws {
				n += w.width()
				for _, c := range chunks(w) {
					longest[j] = max(longest[j], c.width())
				}
			}
			natural[j] = max(natural[j], n, 1)
		}
	}
	widths := append([]int(nil), natural...)
	total := 0
	for _, w := range widths {
		total += w
	}
	for total > avail {
		j := widest(widths, longest)
		if j < 0 {
			j = widest(widths, nil)
			if j < 0 {
				break // every column is one cell wide
			}
		}
		widths[j]--
		total--
	}
	return widths
}

// widest is the index of the widest column that can still shrink without splitting
// a word (floor nil: without going below one cell), or -1.
func widest(widths, floor []int) int {
	best := -1
	for j, w := range widths {
		f := 1
		if floor != nil {
			f = max(floor[j], 1)
		}
		if w > f && (best < 0 || w > widths[best]) {
			best = j
		}
	}
	return best
}

func withMark(segs []seg, m mark) []seg {
	out := make([]seg, len(segs))
	for i, s := range segs {
		out[i] = seg{s.text, s.mark | m}
	}
	return out
}

// pad aligns styled text in a column w cells wide.
func pad(text string, w int, a align) string {
	gap := w - ansi.StringWidth(text)
	if gap <= 0 {
		return text
	}
	switch a {
	case alignRight:
		return strings.Repeat(" ", gap) + text
	case alignCenter:
		return strings.Repeat(" ", gap/2) + text + strings.Repeat(" ", gap-gap/2)
	}
	return text + strings.Repeat(" ", gap)
}
