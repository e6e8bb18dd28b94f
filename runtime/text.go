package runtime

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/examtui/examtui/spec/lang"
)

// MaxExcerptRunes caps evidence excerpts (pipecat-adapter §3: "max 200 chars").
const MaxExcerptRunes = 200

// TruncateRunes shortens s to at most n runes without splitting a UTF-8 sequence. Invalid
// UTF-8 is replaced so that what reaches the ledger and the events is always valid text.
func TruncateRunes(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// SplitSentences splits text at sentence boundaries (., ?, ! or … followed by space or end),
// keeping the terminator with its sentence. Whitespace between sentences is dropped.
func SplitSentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isTerminator(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(text) {
			r2, s2 := utf8.DecodeRuneInString(text[j:])
			if !isTerminator(r2) && !isCloser(r2) {
				break
			}
			j += s2
		}
		if j < len(text) {
			if r2, _ := utf8.DecodeRuneInString(text[j:]); !unicode.IsSpace(r2) {
				i = j
				continue
			}
		}
		if s := strings.TrimSpace(text[start:j]); s != "" {
			out = append(out, s)
		}
		start, i = j, j
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func isCloser(r rune) bool { return r == '"' || r == '\'' || r == ')' || r == '”' || r == '’' }

// isTerminator: the Latin terminators and the Arabic question mark (U+061F) and full stop
// (U+06D4).
func isTerminator(r rune) bool {
	return r == '.' || r == '?' || r == '!' || r == '…' || r == '؟' || r == '۔'
}

// completeSentences returns the sentences of a text that is still being streamed: only those
// followed by whitespace are certainly finished.
func completeSentences(text string) []string {
	ss := SplitSentences(text)
	if len(ss) == 0 {
		return nil
	}
	trimmed := strings.TrimRightFunc(text, unicode.IsSpace)
	if trimmed == text || !strings.HasSuffix(trimmed, ss[len(ss)-1]) {
		// The last piece is not followed by whitespace yet: it may still grow.
		ss = ss[:len(ss)-1]
	} else if r, _ := utf8.DecodeLastRuneInString(trimmed); !isTerminator(r) && r != '"' && r != '\'' && r != ')' {
		ss = ss[:len(ss)-1]
	}
	return ss
}

// normalizeWords lowercases text and reduces it to words separated by single spaces, so that
// phrase matching ignores punctuation and spacing. Combining marks (Arabic short vowels, a
// decomposed accent) and the Arabic tatweel are dropped and Arabic letter variants folded
// (lang.FoldRune), as the language packs' words are.
func normalizeWords(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	space := true
	for _, r := range s {
		switch {
		case r >= 0x300 && (unicode.Is(unicode.Mn, r) || r == '\u0640'):
			// a combining mark or tatweel: part of the word, not a letter of it
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(lang.FoldRune(unicode.ToLower(r)))
			space = false
		case r == '\'' || r == '’':
			// keep contractions together: "don't" → "dont"
		default:
			if !space {
				b.WriteByte(' ')
				space = true
			}
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// containsPhrase reports whether the normalized text (from normalizeWords) contains the phrase
// on word boundaries. A trailing "s"/"es" on the phrase's last word also matches, so "guest"
// finds "guests".
func containsPhrase(normText, phrase string) bool {
	return containsNorm(normText, normPhrase(phrase))
}

// normPhrase normalizes a phrase once for repeated containsNorm calls.
func normPhrase(phrase string) string { return strings.TrimSpace(normalizeWords(phrase)) }

// containsNorm is containsPhrase for a phrase already passed through normPhrase. It does not
// allocate: it is on the per-turn path of every filter and classifier.
func containsNorm(normText, p string) bool {
	if p == "" {
		return false
	}
	for i := 0; i < len(normText); {
		j := strings.Index(normText[i:], p)
		if j < 0 {
			return false
		}
		j += i
		if j > 0 && normText[j-1] == ' ' {
			rest := normText[j+len(p):]
			if strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "s ") || strings.HasPrefix(rest, "es ") {
				return true
			}
		}
		i = j + 1
	}
	return false
}

// MatchPhrase reports whether text contains phrase on word boundaries, ignoring case and
// punctuation (plural forms of the last word match too).
func MatchPhrase(text, phrase string) bool { return containsPhrase(normalizeWords(text), phrase) }

func stringsContains(a, b string) bool { return strings.Contains(a, b) }
