// Package visual puts a line of text in display order for a terminal, which draws cells left
// to right in the order it receives them: right-to-left script (Arabic, Hebrew, Persian) is
// reversed into reading order by the Unicode bidirectional algorithm (golang.org/x/text's
// resolution of levels, then rule L2 here). Every console pane and terminal report calls Line
// on each line after wrapping, since bidi reorders within a line, never across lines.
//
// Text reaching Line has been cleaned (internal/textsafe): bidi control characters (overrides,
// embeddings, isolates) are refused before display, so a line holds at most two levels: the
// paragraph's and the opposite direction's runs inside it.
package visual

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/bidi"
)

// Line returns s in display order. A line without right-to-left characters is returned as it
// is (the common case, without allocation). The paragraph direction is that of the first
// strong character (rules P2, P3): an Arabic line reads from its right; an English line
// quoting Arabic keeps its order, with the Arabic run in reading order inside it.
func Line(s string) (out string) {
	if !hasRTL(s) {
		return s
	}
	// x/text's bidi is documented as under development and panics on some inputs (a line of
	// marks alone): such a line is shown as it came, never lost.
	defer func() {
		if recover() != nil {
			out = s
		}
	}()
	var p bidi.Paragraph
	if _, err := p.SetString(s); err != nil {
		return s
	}
	o, err := p.Order()
	if err != nil {
		return s
	}
	n := o.NumRuns()
	runs := make([]string, n)
	rtl := make([]bool, n)
	number := make([]bool, n)
	for i := range n {
		r := o.Run(i)
		text := r.String()
		number[i] = isNumber(text)
		if r.Direction() == bidi.RightToLeft {
			text = reverse(text)
			rtl[i] = true
		}
		runs[i] = text
	}
	if !p.IsLeftToRight() {
		// Rule L2 with two levels: the runs of a right-to-left paragraph are laid out from the
		// right, each left-to-right run (a number, a Latin word) keeping its own order.
		for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
			runs[i], runs[j] = runs[j], runs[i]
		}
		// Spaces at the paragraph's logical end were at its visual left: keep the line's
		// trailing spaces at the end so widths and padding stay the caller's.
		joined := strings.Join(runs, "")
		trimmed := strings.TrimLeft(joined, " ")
		return trimmed + strings.Repeat(" ", len(joined)-len(trimmed))
	}
	// Rule L2 with a third level: in a left-to-right paragraph a number between two
	// right-to-left runs ("3" in "… 3 مرات") is inside the right-to-left text, so the group
	// reads from its right, the number keeping its own order.
	ordered := make([]string, 0, n)
	for i := 0; i < n; {
		j := i
		for rtl[i] && j+2 < n && number[j+1] && rtl[j+2] {
			j += 2
		}
		for k := j; k >= i; k-- {
			ordered = append(ordered, runs[k])
		}
		i = j + 1
	}
	return strings.Join(ordered, "")
}

// isNumber reports a run of digits and the separators within numbers ("12:30", "3,5").
func isNumber(s string) bool {
	digit := false
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digit = true
		case strings.ContainsRune(".,:/+-%", r):
		default:
			return false
		}
	}
	return digit
}

// hasRTL reports a right-to-left letter in s (Hebrew, Arabic and their supplements, Syriac,
// Thaana, NKo and the presentation forms).
func hasRTL(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isRTL(r) {
			return true
		}
		i += size
	}
	return false
}

func isRTL(r rune) bool {
	return r >= 0x0590 && r <= 0x08FF || r >= 0xFB1D && r <= 0xFDFF || r >= 0xFE70 && r <= 0xFEFF ||
		r >= 0x10800 && r <= 0x10FFF || r >= 0x1E800 && r <= 0x1EFFF
}

// reverse reverses a right-to-left run by character: a combining mark (an Arabic short vowel)
// stays after the letter it marks, and brackets are mirrored ("(" reads as ")" from the right).
func reverse(s string) string {
	var clusters []string
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		j := i + size
		for j < len(s) {
			r, sz := utf8.DecodeRuneInString(s[j:])
			if !unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) && r != '\u200d' {
				break
			}
			j += sz
		}
		clusters = append(clusters, s[i:j])
		i = j
	}
	var b strings.Builder
	b.Grow(len(s))
	for k := len(clusters) - 1; k >= 0; k-- {
		c := clusters[k]
		if r, size := utf8.DecodeRuneInString(c); size == len(c) {
			if p, _ := bidi.LookupRune(r); p.IsBracket() {
				c = bidi.ReverseString(c) // mirrors the bracket
			}
		}
		b.WriteString(c)
	}
	return b.String()
}
