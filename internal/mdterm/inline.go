package mdterm

import (
	"strings"
	"unicode"
)

// mark is a set of inline styles carried by a run of text.
type mark uint8

const (
	markStrong mark = 1 << iota
	markEm
	markCode
)

// seg is a run of text with one set of marks.
type seg struct {
	text string
	mark mark
}

var entities = []struct{ name, text string }{
	{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&quot;", `"`}, {"&#39;", "'"}, {"&nbsp;", " "},
}

// parseInline turns inline Markdown into marked runs. Delimiters open only when a
// closing delimiter follows, so stray asterisks in prose stay literal instead of
// styling the rest of the line.
func parseInline(s string) []seg {
	var out []seg
	var cur strings.Builder
	var m mark
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, seg{cur.String(), m})
			cur.Reset()
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			cur.WriteByte(s[i+1])
			i += 2
			continue
		case c == '&':
			if e, ok := entityAt(s[i:]); ok {
				cur.WriteString(e.text)
				i += len(e.name)
				continue
			}
		case c == '`':
			n := runLen(s[i:], '`')
			if end := findCodeClose(s[i+n:], n); end >= 0 {
				code := s[i+n : i+n+end]
				// CommonMark strips one space each side so "`` `x` ``" can show backticks.
				if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
					code = code[1 : len(code)-1]
				}
				flush()
				out = append(out, seg{code, m | markCode})
				i += n + end + n
				continue
			}
			cur.WriteString(s[i : i+n])
			i += n
			continue
		case c == '*' || c == '_':
			n := runLen(s[i:], c)
			var want mark
			switch {
			case n >= 2:
				want, n = markStrong, 2
			default:
				want = markEm
			}
			delim := s[i : i+n]
			prev, next := runeBefore(s, i), runeAfter(s, i+n)
			if m&want != 0 {
				// Closing: must follow non-space text.
				if !unicode.IsSpace(prev) && prev != 0 && (c == '*' || !isWordRune(next)) {
					flush()
					m &^= want
					i += n
					continue
				}
			} else if next != 0 && !unicode.IsSpace(next) && (c == '*' || !isWordRune(prev)) &&
				hasCloser(s[i+n:], delim) {
				flush()
				m |= want
				i += n
				continue
			}
			cur.WriteString(delim)
			i += n
			continue
		}
		cur.WriteByte(c)
		i++
	}
	flush()
	return out
}

func isASCIIPunct(b byte) bool {
	return b < 0x80 && unicode.IsPunct(rune(b)) || strings.IndexByte("$+<=>^`|~", b) >= 0
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func entityAt(s string) (struct{ name, text string }, bool) {
	for _, e := range entities {
		if strings.HasPrefix(s, e.name) {
			return e, true
		}
	}
	return struct{ name, text string }{}, false
}

func runLen(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// findCodeClose returns the offset in s of a backtick run exactly n long, or -1.
func findCodeClose(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		k := runLen(s[i:], '`')
		if k == n {
			return i
		}
		i += k
	}
	return -1
}

// hasCloser reports whether delim appears later after non-space text, skipping escapes.
func hasCloser(s, delim string) bool {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case strings.HasPrefix(s[i:], delim) && i > 0 && s[i-1] != ' ':
			return true
		}
	}
	return false
}

func runeBefore(s string, i int) rune {
	if i == 0 {
		return 0
	}
	r := []rune(s[:i])
	return r[len(r)-1]
}

func runeAfter(s string, i int) rune {
	for _, r := range s[i:] {
		return r
	}
	return 0
}
