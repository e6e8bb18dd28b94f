// Package textsafe makes text from outside the program safe to show to a person.
//
// Candidates type answers, LLMs write replies and authors name nodes; any of them can carry
// control characters that a terminal treats as commands (cursor moves, title or clipboard
// writes through OSC sequences, a bell) or bidirectional overrides that make text read
// differently from what it is. Every human-readable writer (the console, reports, Markdown
// exports, printed event lines) passes its text through this one package.
package textsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s on one line: tabs and line breaks become spaces, every other control
// character, bidirectional control and invalid UTF-8 byte is dropped or replaced.
func Line(s string) string {
	if isClean(s, false) {
		return s
	}
	return clean(s, false)
}

// Block is Line for multi-line text: line breaks ("\n"; "\r\n" and "\r" become "\n") and
// tabs are kept, everything else Line drops is dropped.
func Block(s string) string {
	if isClean(s, true) {
		return s
	}
	return clean(strings.ReplaceAll(s, "\r\n", "\n"), true)
}

// Unsafe reports whether s holds anything Line would change other than tabs and line breaks:
// a validator uses it to reject text that should have been cleaned.
func Unsafe(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && r != '\r' && dropped(r) {
			return true
		}
	}
	return false
}

func isClean(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			if multiline && (c == '\n' || c == '\t') {
				continue
			}
			return false
		}
		if c >= 0x80 {
			return !Unsafe(s[i:]) && (multiline || !strings.ContainsAny(s[i:], "\n\t\r"))
		}
	}
	return true
}

func clean(s string, multiline bool) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			if multiline {
				return r
			}
			return ' '
		case r == '\r':
			if multiline {
				return '\n'
			}
			return ' '
		case dropped(r):
			return -1
		}
		return r
	}, s)
}

// dropped: C0 and C1 controls, DEL, and the bidirectional embeddings, overrides, isolates and
// marks that can reorder what a reader sees.
func dropped(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// Visible is Line without terminal escape sequences: a CSI ("ESC [ … final"), an OSC, DCS, SOS,
// PM or APC string ("ESC ] … BEL" or "… ESC \") or a two-character escape is removed whole,
// parameters and payload included, since none of it is text anyone typed to be read. It
// decides whether an answer holds anything at all.
func Visible(s string) string {
	if !strings.ContainsRune(s, 0x1b) {
		return Line(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case '[': // CSI: parameter and intermediate bytes, then one final byte 0x40–0x7E
			for i+1 < len(s) && (s[i+1] < 0x40 || s[i+1] > 0x7e) {
				i++
			}
			i++
		case ']', 'P', 'X', '^', '_': // strings end at BEL or ST (ESC \)
			for i+1 < len(s) && s[i+1] != 0x07 && !(s[i+1] == 0x1b && i+2 < len(s) && s[i+2] == '\\') {
				i++
			}
			if i+1 < len(s) && s[i+1] == 0x1b {
				i++
			}
			i++
		}
	}
	return Line(b.String())
}

// JSONUnsafe is a cheap test on a JSON document (an event's payload): whether any string in it
// may hold something Line would change. Controls arrive as JSON escapes (\u00XX, \n, \t, \r,
// \b, \f) or as raw C1 bytes; bidirectional controls raw or as \u escapes. A document it
// passes needs no decoding and cleaning string by string.
func JSONUnsafe(doc []byte) bool {
	for i := 0; i < len(doc); i++ {
		switch c := doc[i]; {
		case c < 0x20 || c == 0x7f:
			return true
		case c == '\\' && i+1 < len(doc):
			i++
			switch doc[i] {
			case 'n', 'r', 't', 'b', 'f':
				return true
			case 'u':
				if i+4 < len(doc) {
					if r, ok := hex4(doc[i+1 : i+5]); ok && dropped(rune(r)) {
						return true
					}
				}
			}
		case c >= 0x80:
			r, n := utf8.DecodeRune(doc[i:])
			if r == utf8.RuneError && n <= 1 || dropped(r) {
				return true
			}
			i += n - 1
		}
	}
	return false
}

func hex4(b []byte) (uint16, bool) {
	var v uint16
	for _, c := range b {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= uint16(c - '0')
		case c >= 'a' && c <= 'f':
			v |= uint16(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			v |= uint16(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return v, true
}

// EscapeJSON rewrites a JSON document so that every character Line would drop that JSON lets
// stand raw (DEL, C1 controls, bidirectional controls; C0 controls are always escaped) is
// written as a \u escape. The document decodes to exactly the same values, and a terminal
// showing it shows nothing it would obey or reorder. doc is returned as it is when there is
// nothing to escape.
func EscapeJSON(doc []byte) []byte {
	i := 0
	for i < len(doc) {
		if doc[i] < utf8.RuneSelf && doc[i] != 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRune(doc[i:])
		if dropped(r) {
			break
		}
		i += n
	}
	if i == len(doc) {
		return doc
	}
	out := make([]byte, 0, len(doc)+16)
	out = append(out, doc[:i]...)
	for i < len(doc) {
		r, n := utf8.DecodeRune(doc[i:])
		if (r >= utf8.RuneSelf || r == 0x7f) && dropped(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, doc[i:i+n]...)
		}
		i += n
	}
	return out
}

// formulaStarts are the characters a spreadsheet reads, at the start of a cell, as a formula:
// = + - @ and their full-width forms, which some spreadsheets fold to the ASCII ones.
const formulaStarts = "=+-@＝＋－＠"

// Cell is the one rule for a text cell of an export (CSV or JSON) that a spreadsheet may open:
// the text on one line with terminal escapes removed whole and control and bidirectional
// characters dropped (Visible), and a value a spreadsheet would run as a formula (one that
// starts, after any spaces, with = + - @ or a full-width form of them) prefixed with a quote,
// which spreadsheets read as "this is text". The rest of the text is kept.
func Cell(s string) string {
	v := Visible(s)
	t := strings.TrimLeftFunc(v, unicode.IsSpace)
	if r, _ := utf8.DecodeRuneInString(t); t != "" && strings.ContainsRune(formulaStarts, r) {
		return "'" + v
	}
	return v
}
