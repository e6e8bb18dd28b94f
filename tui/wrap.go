package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/examtui/examtui/internal/visual"
)

// wrapPlain wraps unstyled text to width cells and returns the lines. Words break at spaces;
// wide characters (CJK) may break between any two of them, as those scripts are written
// without spaces, except before closing punctuation; a word longer than the line is cut.
// Control characters are dropped: the text may come from a candidate in a room or from an
// LLM, and must not reach the terminal as escape sequences.
func wrapPlain(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	return display(wrapHanging(s, width, width))
}

// wrapHanging wraps like wrapPlain with the first line of each paragraph first cells wide and
// the others rest cells wide (a hanging indent the caller adds).
func wrapHanging(s string, first, rest int) []string {
	first, rest = max(first, 1), max(rest, 1)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = wrapLine(para, first, rest, out)
	}
	return out
}

// display puts wrapped lines in display order: right-to-left script in reading order, line by
// line (internal/visual), each line its own paragraph.
func display(lines []string) []string {
	for i, l := range lines {
		lines[i] = visual.Line(l)
	}
	return lines
}

// wrapLine appends the lines of one paragraph to out.
func wrapLine(s string, first, rest int, out []string) []string {
	start := len(out) // the paragraph's first line keeps its indentation
	width := first
	var (
		line    strings.Builder
		lineW   int
		word    strings.Builder
		wordW   int
		spaceW  int  // pending spaces before the word
		lastCJK bool // the word ends in a wide character
	)
	flushLine := func() {
		out = append(out, line.String())
		line.Reset()
		lineW = 0
		width = rest
	}
	// place puts the pending word on the line, starting a new line when it does not fit.
	place := func() {
		if word.Len() == 0 {
			return
		}
		switch {
		case lineW > 0 && lineW+spaceW+wordW <= width:
			line.WriteString(strings.Repeat(" ", spaceW))
			lineW += spaceW
		case lineW > 0:
			flushLine()
		}
		line.WriteString(word.String())
		lineW += wordW
		word.Reset()
		wordW, spaceW = 0, 0
	}
	for len(s) > 0 {
		var g string
		var gw int
		if c := s[0]; c < utf8.RuneSelf {
			g, s = s[:1], s[1:]
			gw = 1
			switch {
			case c == ' ' || c == '\t':
				place()
				if lineW == 0 && len(out) == start && wordW == 0 {
					line.WriteByte(' ')
					lineW++
					continue
				}
				spaceW++
				continue
			case c < 0x20 || c == 0x7f:
				continue
			}
		} else {
			g, gw = ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
			s = s[len(g):]
			r, _ := utf8.DecodeRuneInString(g)
			switch {
			case unicode.IsControl(r) || (r >= 0x80 && r <= 0x9f):
				continue
			case unicode.IsSpace(r) && r != '\u00a0':
				place()
				if lineW > 0 {
					spaceW += max(gw, 1)
				}
				continue
			}
		}
		wide := gw > 1
		// Between wide characters (or a word and a wide character) a line may break, unless
		// the next one is closing punctuation, which stays with what it closes.
		if wordW > 0 && (wide || lastCJK) && !closesCJK(g) {
			place()
		}
		if wordW+gw > width {
			// A word longer than the line: cut it where the line ends.
			place()
			if lineW > 0 {
				flushLine()
			}
		}
		word.WriteString(g)
		wordW += gw
		lastCJK = wide
	}
	place()
	flushLine()
	return out
}

// closesCJK reports whether g is punctuation that must not begin a line (kinsoku).
func closesCJK(g string) bool {
	return g != "" && strings.Contains(kinsokuStart, g)
}

// kinsokuStart lists what may not begin a line: closing punctuation, the prolonged sound
// mark and small kana.
const kinsokuStart = "、。，．・：；？！）」』】〕〉》ー〜…‥ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"

// WrapHanging is the console's one wrapping function for the other consoles (the marking
// console): plain text wrapped as wrapPlain does, a paragraph's first line first cells wide and
// the others rest cells wide. A no-break space (U+00A0) keeps the words it joins on one line.
func WrapHanging(s string, first, rest int) []string { return wrapHanging(s, first, rest) }
