package runtime

import (
	"strings"
	"unicode"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// examVocab is the exam's own vocabulary, which the candidate must never hear whatever node
// they are in: every node's signal ids (a node's examiner can still name another node's
// signal), level names, the limit fields of the format and the transition reasons. It is built
// once per compiled exam and shared by every node's filters (rubric_leak reads it).
type examVocab struct {
	phrases phraseIndex       // normalized phrase → found by its first word
	kind    map[string]string // normalized phrase → what it is, for the interception's detail
}

// limitFields are the format's limit fields (spec.NodeController, spec.ResolvedPolicies,
// spec.ResolvedFilter): their names, written or spoken ("max follow ups"), say how the
// candidate is judged.
var limitFields = []string{"requiredEvidenceCount", "maxFollowUps", "maxOffTopicRedirects", "maxClarifications",
	"timeBudgetSec", "totalTimeBudgetSec", "sttMinConfidence", "timeWarningSec", "maxChars", "completionPolicy"}

// examinerOnlyWords are controller words that are never ordinary speech in any of their forms.
var examinerOnlyWords = []string{"followups exhausted", "follow ups exhausted", "evidence sufficient", "evidence sufficiency",
	"followup limit", "follow up limit", "off topic limit", "off topic redirects", "time exhausted", "admin advance"}

func buildExamVocab(exam *spec.Exam) *examVocab {
	v := &examVocab{kind: map[string]string{}}
	add := func(what, p string) {
		n := normPhrase(p)
		if n == "" {
			return
		}
		if _, ok := v.kind[n]; !ok {
			v.kind[n] = what
		}
	}
	for _, f := range limitFields {
		add("limit "+f, f)             // "requiredevidencecount": one token, never a word
		add("limit "+f, splitCamel(f)) // "required evidence count"
	}
	for _, r := range spec.Reasons {
		// A one-word reason ("skipped", "distress") is ordinary English; only the compound ones
		// are the controller's words.
		if strings.Contains(r.String(), "_") {
			add("transition "+r.String(), r.String())
		}
	}
	for _, w := range examinerOnlyWords {
		add("controller word", w)
	}
	levels := map[string]bool{}
	for _, def := range exam.Evidence {
		// A signal id of one word is an ordinary word; a compound one ("analyses_clientele",
		// spoken "analyses clientele") is the rubric's.
		if strings.ContainsAny(def.SignalType, "_- ") || splitCamel(def.SignalType) != strings.ToLower(def.SignalType) {
			add("signal id "+def.SignalType, def.SignalType)
			add("signal id "+def.SignalType, splitCamel(def.SignalType))
		}
		for _, l := range def.Levels {
			levels[l] = true
		}
	}
	for _, def := range exam.Evidence {
		for _, l := range def.Levels {
			if !levels[l] {
				continue
			}
			delete(levels, l)
			n := normPhrase(l)
			// A level name alone is an ordinary word ("analysis"); as a level it is the rubric's.
			for _, p := range []string{n + " level", "level of " + n, "level " + n} {
				add("level name "+p, p)
			}
		}
	}
	all := make([]string, 0, len(v.kind))
	for p := range v.kind {
		all = append(all, p)
	}
	v.phrases = newPhraseIndex(all)
	return v
}

// match names the exam word a normalized text contains, or "".
func (v *examVocab) match(norm string) string {
	if v == nil {
		return ""
	}
	if p := v.phrases.first(norm); p != "" {
		return v.kind[p]
	}
	return limitWording(norm)
}

// splitCamel writes a camelCase or snake_case name as the words it is spoken as:
// "requiredEvidenceCount" → "required evidence count".
func splitCamel(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || r == ' ':
			b.WriteByte(' ')
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	return b.String()
}

// limits are the limit words of every shipped pack (lang.LimitWords), normalized: the exam's
// limits said in any of the shipped languages are the exam's words in every exam.
var limits = func() (l struct {
	nouns, after, before, of map[string]bool
	counts                   map[string]bool
	first                    map[string]bool // the first word of every noun, for the quick test
}) {
	set := func(m map[string]bool, ws []string) {
		for _, w := range ws {
			if n := normPhrase(w); n != "" {
				m[n] = true
			}
		}
	}
	l.nouns, l.after, l.before, l.of, l.counts, l.first = map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	var nouns []string
	for _, tag := range lang.Builtin().Languages() {
		p, _ := lang.Lookup(tag)
		lw := p.Vocabulary.Limits
		nouns = append(nouns, normPhrases(lw.Nouns)...)
		set(l.after, lw.After)
		set(l.before, lw.Before)
		set(l.of, lw.Of)
		set(l.counts, lw.Counts)
	}
	for _, n := range nouns {
		l.first[strings.Fields(n)[0]] = true
		l.nouns[n] = true
	}
	return l
}()

// limitWording finds a limit said in words: "you have 1 of 2 clarifications left", "two
// follow-ups remaining", "a maximum of three clarifications". A limit noun alone ("a
// clarification") is ordinary speech; with a count, a word after it ("left", "remaining") or
// a word before it ("maximum") it is the exam's limit.
func limitWording(norm string) string {
	words := strings.Fields(norm)
	for i := 0; i < len(words); i++ {
		if !limits.first[words[i]] {
			continue
		}
		n := limitNounAt(words, i)
		if n == 0 {
			continue
		}
		noun, next := strings.Join(words[i:i+n], ""), i+n
		// A word after the noun, or one further ("trois relances au maximum").
		for k := next; k < len(words) && k <= next+1; k++ {
			if limits.after[words[k]] {
				return "limit wording " + noun + " " + words[k]
			}
		}
		// Look back a few words for "N of M", "maximum", "limit", "up to", "at most".
		for j := i - 1; j >= 0 && j >= i-4; j-- {
			w := words[j]
			if limits.before[w] || (limits.of[w] && j > 0 && isCount(words[j-1]) && j+1 < i && isCount(words[j+1])) {
				return "limit wording " + strings.Join(words[max(j-1, 0):i+1], " ")
			}
		}
	}
	return ""
}

// limitNounAt is the number of words of the longest limit noun at words[i:], or 0.
func limitNounAt(words []string, i int) int {
	best := 0
	for n := 1; n <= 3 && i+n <= len(words); n++ {
		if limits.nouns[strings.Join(words[i:i+n], " ")] {
			best = n
		}
	}
	return best
}

func isCount(w string) bool {
	if limits.counts[w] {
		return true
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return w != ""
}
