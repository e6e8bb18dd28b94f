package lang

import (
	"strings"
	"unicode"
)

// Words splits text into lower-case words the way the packs' word lists are compared: letters
// and digits only (an apostrophe or hyphen splits: "l'examen" → "l", "examen"), combining marks
// dropped (Arabic short vowels, a decomposed accent), and the Arabic letter variants that
// speech recognisers and writers use interchangeably folded (FoldRune).
func Words(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Mn, r) || r == '\u0640': // combining mark, Arabic tatweel
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(FoldRune(unicode.ToLower(r)))
		default:
			flush()
		}
	}
	flush()
	return out
}

// FoldRune folds the Arabic letters written interchangeably to one form: the hamza-carrying
// alefs (أ إ آ ٱ) to bare alef, alef maqsura to ya. Every other rune is returned as it is.
func FoldRune(r rune) rune {
	switch r {
	case 'أ', 'إ', 'آ', 'ٱ':
		return 'ا'
	case 'ى':
		return 'ي'
	}
	return r
}

// Guess names the registry's language whose common words occur most in text, with how many of
// text's words are common words of that language and how many words text has. A text of
// fewer than a handful of words says little: the caller decides what is enough.
func (r *Registry) Guess(text string) (tag string, hits, words int) {
	ws := Words(text)
	sets := r.commonSets()
	for t, set := range sets {
		n := 0
		for _, w := range ws {
			if set[w] {
				n++
			}
		}
		if n > hits || (n == hits && n > 0 && t < tag) {
			tag, hits = t, n
		}
	}
	return tag, hits, len(ws)
}

// Hits counts text's words that are common words of the pack's language.
func (p *Pack) Hits(text string) int {
	set := commonSet(p)
	n := 0
	for _, w := range Words(text) {
		if set[w] {
			n++
		}
	}
	return n
}

func (r *Registry) commonSets() map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(r.packs))
	for t, p := range r.packs {
		out[t] = commonSet(p)
	}
	return out
}

func commonSet(p *Pack) map[string]bool {
	set := map[string]bool{}
	for _, w := range p.CommonWords {
		for _, x := range Words(w) {
			set[x] = true
		}
	}
	return set
}
