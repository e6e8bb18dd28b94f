package mdterm

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/internal/visual"
)

// word is a run of non-space text; it may change style midway ("`id`," or "**Key:**").
type word []seg

func (w word) width() int {
	n := 0
	for _, s := range w {
		n += ansi.StringWidth(s.text)
	}
	return n
}

// words splits marked runs on white space. Code spans keep their inner spaces as
// break points too: a long code span must still fit the width.
func words(segs []seg) []word {
	var out []word
	var cur word
	for _, s := range segs {
		start := -1
		for i, r := range s.text {
			if unicode.IsSpace(r) {
				if start >= 0 {
					cur = append(cur, seg{s.text[start:i], s.mark})
					start = -1
				}
				if len(cur) > 0 {
					out = append(out, cur)
					cur = nil
				}
				continue
			}
			if start < 0 {
				start = i
			}
		}
		if start >= 0 {
			cur = append(cur, seg{s.text[start:], s.mark})
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// wrap lays marked runs out greedily in lines of at most width cells. first prefixes
// the first line and indent the others; both count towards the width. A word longer
// than a line is broken between characters.
func wrap(segs []seg, width int, first, indent string, st styles) []string {
	var lines []string
	var line, plain strings.Builder // the line as styled, and its text alone
	prefix := first
	avail := width - ansi.StringWidth(ansi.Strip(prefix))
	used := 0
	emit := func() {
		lines = append(lines, prefix+display(line.String(), plain.String()))
		line.Reset()
		plain.Reset()
		prefix = indent
		avail = width - ansi.StringWidth(ansi.Strip(prefix))
		used = 0
	}
	for _, w := range words(segs) {
		ww := w.width()
		if used > 0 && used+1+ww > avail {
			emit()
		}
		if used > 0 {
			line.WriteByte(' ')
			plain.WriteByte(' ')
			used++
		}
		if ww <= avail-used {
			for _, s := range w {
				line.WriteString(st.inline(s.mark, s.text))
				plain.WriteString(s.text)
			}
			used += ww
			continue
		}
		for _, c := range chunks(w) {
			cw := c.width()
			if used > 0 && used+cw > avail {
				emit()
			}
			for _, s := range c {
				var piece strings.Builder
				for _, r := range s.text {
					rw := ansi.StringWidth(string(r))
					if used+rw > avail && used > 0 {
						line.WriteString(st.inline(s.mark, piece.String()))
						plain.WriteString(piece.String())
						piece.Reset()
						emit()
					}
					piece.WriteRune(r)
					used += rw
				}
				line.WriteString(st.inline(s.mark, piece.String()))
				plain.WriteString(piece.String())
			}
		}
	}
	if line.Len() > 0 || len(lines) == 0 {
		lines = append(lines, prefix+display(line.String(), plain.String()))
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// display is a wrapped line as the terminal shows it: styled, or, when it holds right-to-left
// script, its text in reading order (visual.Line, the one layout every console and report
// uses) without its inline styles, which cannot follow runs that were reordered.
func display(styled, plain string) string {
	if v := visual.Line(plain); v != plain {
		return v
	}
	return styled
}

// chunks splits a word after each hyphen or slash, the places where a word too long
// for its line (an identifier like scenario-hotel-breakfast) breaks most readably.
func chunks(w word) []word {
	var out []word
	var cur word
	for _, s := range w {
		start := 0
		for i := 0; i < len(s.text); i++ {
			if c := s.text[i]; (c == '-' || c == '/') && i+1 < len(s.text) {
				cur = append(cur, seg{s.text[start : i+1], s.mark})
				out = append(out, cur)
				cur = nil
				start = i + 1
			}
		}
		if start < len(s.text) {
			cur = append(cur, seg{s.text[start:], s.mark})
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
