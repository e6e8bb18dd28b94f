package runtime

import (
	"fmt"
	"slices"
	"strings"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// dropSentences removes the sentences for which bad returns a reason; it returns what is left
// and the first reason.
func dropSentences(text string, bad func(norm string) string) (string, string) {
	var kept []string
	first := ""
	for _, s := range SplitSentences(text) {
		if why := bad(normalizeWords(s)); why != "" {
			if first == "" {
				first = why
			}
			continue
		}
		kept = append(kept, s)
	}
	return strings.Join(kept, " "), first
}

func firstMatch(norm string, phrases []string) string {
	for _, p := range phrases {
		if containsNorm(norm, p) {
			return p
		}
	}
	return ""
}

func (nf *nodeFilters) personaBreakFilter(text, norm string) (string, string, bool) {
	if firstMatch(norm, nf.personaBreak) == "" {
		return text, "", false
	}
	kept, why := dropSentences(text, func(n string) string { return firstMatch(n, nf.personaBreak) })
	if !hasQuestion(kept) {
		kept = strings.TrimSpace(kept + " " + nf.lv.line(lang.LineNeutralFollowUp))
	}
	return kept, fmt.Sprintf("matched %q", why), true
}

func (nf *nodeFilters) rubricLeak(norm string) string {
	if m := firstMatch(norm, nf.rubricWords); m != "" {
		return "rubric word " + m
	}
	if m := nf.vocab.match(norm); m != "" {
		return m
	}
	if len(nf.descNgrams) > 0 {
		if st := nf.descNgramIn(norm); st != "" {
			return "description of " + st
		}
	}
	return ""
}

// descNgramIn looks up every run of descriptionNgram words of a normalized text (" w1 w2 … ")
// in the description n-grams without building new strings.
func (nf *nodeFilters) descNgramIn(norm string) string {
	var starts [descriptionNgram + 1]int // word start offsets in a ring
	n := 0
	for i := 1; i < len(norm); i++ {
		if norm[i-1] != ' ' || norm[i] == ' ' {
			continue
		}
		starts[n%(descriptionNgram+1)] = i
		n++
		if n > descriptionNgram {
			from := starts[(n-descriptionNgram-1)%(descriptionNgram+1)]
			if st, ok := nf.descNgrams[norm[from:i-1]]; ok {
				return st
			}
		}
	}
	if n >= descriptionNgram {
		from := starts[(n-descriptionNgram)%(descriptionNgram+1)]
		if st, ok := nf.descNgrams[norm[from:len(norm)-1]]; ok {
			return st
		}
	}
	return ""
}

func (nf *nodeFilters) rubricLeakFilter(text, norm string) (string, string, bool) {
	if nf.rubricLeak(norm) == "" {
		return text, "", false
	}
	kept, why := dropSentences(text, nf.rubricLeak)
	if !hasQuestion(kept) {
		kept = strings.TrimSpace(kept + " " + nf.lv.line(lang.LineNeutralFollowUp))
	}
	return kept, why, true
}

// topicSettled reports whether topic_containment can no longer replace a reply that starts
// with the normalized text norm, whatever follows: the filter is off, the node has no domain, or
// norm already names the topic.
func (nf *nodeFilters) topicSettled(norm string) bool {
	if !nf.enabled[spec.FilterTopicContainment] || len(nf.domain) == 0 || firstMatch(norm, nf.domain) != "" {
		return true
	}
	for _, w := range strings.Fields(norm) {
		if len(w) >= 4 && !nf.lv.procedural(w) && nf.topicWords[stem(w)] {
			return true
		}
	}
	return false
}

func (nf *nodeFilters) topicFilter(text, norm string) (string, string, bool) {
	if len(nf.domain) == 0 {
		return text, "", false
	}
	words := strings.Fields(norm)
	if len(words) < minTopicCheckWords {
		return text, "", false
	}
	if firstMatch(norm, nf.domain) != "" {
		return text, "", false
	}
	content := 0
	for _, w := range words {
		if len(w) < 4 || nf.lv.procedural(w) {
			// Procedural words ("explain your reasoning", "let's stop here") carry no topic.
			continue
		}
		if nf.topicWords[stem(w)] {
			return text, "", false
		}
		content++
	}
	// Generic lines ("Could you tell me a little more about that?") carry no topic to judge.
	if content < minTopicContentWords {
		return text, "", false
	}
	out := nf.lv.line(lang.LineTopicRedirect)
	if nf.prompt != "" {
		out += " " + nf.prompt
	}
	return out, "no term of the node's scenarioDomain or scenario", true
}

func (nf *nodeFilters) lengthFilter(text, action string) (string, []string, string, bool) {
	n := len([]rune(text))
	if n <= nf.maxChars {
		return text, nil, "", false
	}
	detail := fmt.Sprintf("%d characters > maxChars %d", n, nf.maxChars)
	if action == "split" {
		parts := splitToFit(text, nf.maxChars)
		return text, parts, detail, true
	}
	// summarize: from the start, within maxChars, and always ending with the closing question.
	out := summarizeKeepingQuestion(text, nf.maxChars)
	return out, nil, detail, true
}

// splitToFit groups whole sentences into chunks of at most max runes; a sentence longer than
// max is cut at a word boundary.
func splitToFit(text string, max int) []string {
	var parts []string
	cur := ""
	for _, s := range SplitSentences(text) {
		for len([]rune(s)) > max {
			head := cutAtWord(s, max)
			if cur != "" {
				parts = append(parts, cur)
				cur = ""
			}
			parts = append(parts, head)
			s = strings.TrimSpace(string([]rune(s)[len([]rune(head)):]))
		}
		if s == "" {
			continue
		}
		switch {
		case cur == "":
			cur = s
		case len([]rune(cur))+1+len([]rune(s)) <= max:
			cur += " " + s
		default:
			parts = append(parts, cur)
			cur = s
		}
	}
	if cur != "" {
		parts = append(parts, cur)
	}
	if len(parts) == 0 {
		parts = []string{TruncateRunes(text, max)}
	}
	return parts
}

func cutAtWord(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	cut := max
	for i := max; i > max/2; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimSpace(string(r[:cut]))
}

func (nf *nodeFilters) leadingFilter(text, norm string) (string, string, bool) {
	if firstMatch(norm, nf.leading) == "" {
		return text, "", false
	}
	var out []string
	why := ""
	for _, s := range SplitSentences(text) {
		if m := firstMatch(normalizeWords(s), nf.leading); m != "" {
			if why == "" {
				why = fmt.Sprintf("matched %q", m)
			}
			// Rephrase as a neutral question about the same thing (rewriteLeading).
			if r := nf.rewriteLeading(s, m); !slices.Contains(out, r) {
				out = append(out, r)
			}
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, " "), why, true
}

// hasQuestion reports a question mark of any shipped language's script.
func hasQuestion(s string) bool { return strings.ContainsAny(s, questionMarks) }

// questionMarks are the closing question marks of every shipped pack ("?", "؟").
var questionMarks = func() string {
	var b strings.Builder
	for _, tag := range lang.Builtin().Languages() {
		p, _ := lang.Lookup(tag)
		for _, m := range p.Questions.Marks {
			if !strings.Contains(b.String(), m) {
				b.WriteString(m)
			}
		}
	}
	return b.String()
}()

// neutralizeReassurance replaces spoken text that judges the answer while the candidate is
// anxious (POL-008: prompting must neither discourage nor reassure), in the pack's language.
func (lv *langVocab) neutralizeReassurance(text string) (string, string, bool) {
	norm := normalizeWords(text)
	for _, p := range lv.reassurance {
		if containsNorm(norm, p) {
			return lv.line(lang.LineSilencePrompt), fmt.Sprintf("judging reassurance %q", p), true
		}
	}
	return text, "", false
}
