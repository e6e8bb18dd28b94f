package runtime

import "strings"

// phraseIndex finds normalized phrases in a normalized text by their first word: one map
// lookup per word of the text instead of one substring scan per phrase, so the always-on
// guardrails' long phrase lists cost little per turn. It matches as containsNorm does (word
// boundaries; a plural "s"/"es" after the phrase).
type phraseIndex map[string][]string

func newPhraseIndex(phrases []string) phraseIndex {
	idx := phraseIndex{}
	for _, p := range phrases {
		first, _, _ := strings.Cut(p, " ")
		idx[first] = append(idx[first], p)
	}
	return idx
}

// first returns the first indexed phrase norm contains, or "".
func (idx phraseIndex) first(norm string) string {
	for i := 1; i < len(norm); {
		j := strings.IndexByte(norm[i:], ' ')
		if j < 0 {
			break
		}
		w := norm[i : i+j]
		keys := [3]string{w, "", ""}
		if strings.HasSuffix(w, "s") {
			keys[1] = w[:len(w)-1]
		}
		if strings.HasSuffix(w, "es") {
			keys[2] = w[:len(w)-2]
		}
		for _, key := range keys {
			if key == "" {
				continue
			}
			for _, p := range idx[key] {
				if !strings.HasPrefix(norm[i:], p) {
					continue
				}
				rest := norm[i+len(p):]
				if strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "s ") || strings.HasPrefix(rest, "es ") {
					return p
				}
			}
		}
		i += j + 1
	}
	return ""
}
