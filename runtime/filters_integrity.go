package runtime

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// Output guardrails that enforce what the examiner must never say (design 2.6, 2.7, 4.14).
// forbiddenActions in the spec reach the model as prompt guidance; these filters catch what the
// model says anyway. They are always on (an author cannot switch them off) and run after
// persona_break and rubric_leak, before topic_containment, length and leading_question.
const (
	// FilterHintRefusal drops hints: "Here is a hint: …", "try mentioning …".
	FilterHintRefusal spec.FilterName = "hint_refusal"
	// FilterForbiddenAction drops revealed answers and evaluative praise or judgement.
	FilterForbiddenAction spec.FilterName = "forbidden_action"
	// FilterEquity drops remarks on the candidate's person (accent, age, background...) and
	// offers to make a question easier for this candidate (prompting must be the same for all).
	FilterEquity spec.FilterName = "equity"
)

// IntegrityFilters lists the always-on output guardrails in pipeline order.
var IntegrityFilters = []spec.FilterName{FilterHintRefusal, FilterForbiddenAction, FilterEquity}

type phraseSet struct {
	name    spec.FilterName
	action  string
	why     string
	phrases phraseIndex
}

// integritySets are the guardrails' phrase sets in one language: the English pack's with the
// exam pack's hint, verdict, praise and equity vocabularies added (an examiner model can slip
// into English in any exam).
func (lv *langVocab) integritySets() []phraseSet {
	en, v := lang.English().Vocabulary, lv.pack.Vocabulary
	return []phraseSet{
		{FilterHintRefusal, "drop_hint", "hint", newPhraseIndex(union(en.Hint, v.Hint))},
		{FilterForbiddenAction, "drop", "", nil}, // reveal + judgement, below
		{FilterEquity, "drop", "remark on the candidate's person or ability", newPhraseIndex(union(en.Equity, v.Equity))},
	}
}

func normAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = normPhrase(p)
	}
	return out
}

// forbiddenMatch names the forbidden action a text (and its normalizeWords) commits, or "": an
// answer revealed, a judging phrase (English's and the pack's verdict and praise phrases), or a
// verdict in any wording by the verdict detector of the exam's language, or of English.
func (lv *langVocab) forbiddenMatch(text, norm string, verdicts *verdictIndex) filterWhy {
	if m := lv.reveal.first(norm); m != "" {
		return filterWhy{Reason: "reveals an answer", Phrase: m}
	}
	if m := lv.judgement.first(norm); m != "" {
		return filterWhy{Reason: "evaluative praise or judgement", Phrase: m}
	}
	// A verdict in any wording (verdict.go): the class, not a list of phrases.
	if why := verdicts.detectIn(text, norm); why != "" {
		return filterWhy{Reason: "verdict", Phrase: why}
	}
	// An examiner model can slip into English in any exam: English's detector runs too.
	if en := vocabularyFor(lang.English()).verdictIndex(); en != verdicts {
		if why := en.detectIn(text, norm); why != "" {
			return filterWhy{Reason: "verdict", Phrase: why}
		}
	}
	return filterWhy{}
}

// runIntegrityFilters applies the always-on guardrails through apply (runFilters' closure).
func (nf *nodeFilters) runIntegrityFilters(apply func(spec.FilterName, string, func(text, norm string) (string, filterWhy, bool))) {
	for i := range nf.integrity {
		apply(nf.integrity[i].name, nf.integrity[i].action, nf.integrity[i].fn)
	}
}

// integrityFilter is one always-on guardrail as a filter function.
type integrityFilter struct {
	name   spec.FilterName
	action string
	fn     func(text, norm string) (string, filterWhy, bool)
}

// integrityFns are the guardrails as filter functions in the pack's language, with the
// verdict detector of the exam's vocabulary, built once per exam's filters (no per-turn
// closures).
func (lv *langVocab) integrityFns(verdicts *verdictIndex) []integrityFilter {
	sets := lv.integritySets()
	out := make([]integrityFilter, len(sets))
	for i := range sets {
		set := &sets[i]
		match := func(raw string) filterWhy {
			n := normalizeWords(raw)
			if set.phrases == nil {
				return lv.forbiddenMatch(raw, n, verdicts)
			}
			if m := set.phrases.first(n); m != "" {
				if set.name == FilterHintRefusal && lv.hintRefusals.first(n) != "" {
					return filterWhy{} // "I can't give hints" refuses a hint rather than giving one
				}
				return filterWhy{Reason: set.why, Phrase: m}
			}
			return filterWhy{}
		}
		out[i].name, out[i].action = set.name, set.action
		out[i].fn = func(text, norm string) (string, filterWhy, bool) {
			if set.phrases != nil && set.phrases.first(norm) == "" {
				return text, filterWhy{}, false
			}
			// forbidden_action judges sentence by sentence: a verdict's structure ends with its
			// sentence ("Correct." before "What would you test first?").
			kept, why := lv.dropClauses(text, match)
			if why.none() {
				return text, filterWhy{}, false
			}
			return lv.keepQuestion(text, kept), why, true
		}
	}
	return out
}

// dropClauses removes what match flags (match reads a sentence or clause as written): in a
// question, only the flagged comma clauses ("Good point, but what would it cost?" keeps the
// question); elsewhere the whole sentence. A kept clause loses the language's lead-in word
// ("but", "mais").
func (lv *langVocab) dropClauses(text string, match func(s string) filterWhy) (string, filterWhy) {
	var kept []string
	var first filterWhy
	for _, s := range SplitSentences(text) {
		why := match(s)
		if why.none() {
			kept = append(kept, s)
			continue
		}
		if first.none() {
			first = why
		}
		if !lv.endsQuestion(s) {
			continue
		}
		var clauses []string
		for _, cl := range splitClauses(s) {
			if match(cl).none() {
				clauses = append(clauses, strings.TrimSpace(cl))
			}
		}
		rest := strings.TrimSpace(strings.Join(clauses, ", "))
		rest = lv.trimLeads(strings.TrimLeft(rest, ",;:- ،"), lv.questions.LeadIns)
		// What is left is kept only if it no longer matches as a whole: a verdict can span
		// clauses that are harmless one by one ("You, 10 out of 12?").
		if len(strings.Fields(rest)) >= 3 && lv.endsQuestion(rest) && match(rest).none() {
			kept = append(kept, upperFirst(rest))
		}
	}
	return strings.Join(kept, " "), first
}

// trimLeads removes the lead words at the start of s, one after another ("but so …").
func (lv *langVocab) trimLeads(s string, leads []string) string {
	for cut := true; cut; {
		cut = false
		for _, lead := range leads {
			l := len(lead)
			elided := strings.HasSuffix(lead, "'") || strings.HasSuffix(lead, "’") // "qu'il"
			if len(s) > l && strings.EqualFold(s[:l], lead) && (elided || s[l] == ' ' || s[l] == ',') {
				s, cut = strings.TrimLeft(s[l:], " ,،"), true
			}
		}
	}
	return s
}

// splitClauses cuts a sentence at its commas, Latin or Arabic.
func splitClauses(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '،' })
}

// keepQuestion makes sure a filter never leaves the candidate without a question: when the
// original asked one and the filtered text asks none, a neutral follow-up is added; an empty
// result becomes a neutral acknowledgement.
func (lv *langVocab) keepQuestion(original, out string) string {
	out = strings.TrimSpace(out)
	if hasQuestion(original) && !hasQuestion(out) {
		return strings.TrimSpace(out + " " + lv.line(lang.LineNeutralFollowUp))
	}
	if out == "" {
		return lv.line(lang.LineThankYou)
	}
	return out
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || n == len(s) {
		return s
	}
	// Keep acronyms and "I" as they are.
	if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) || s[:n] == "I" && (s[n] == ' ' || s[n] == '\'') {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// rewriteLeading turns a leading question into a neutral one that keeps its subject: "Surely
// you'd agree that a buffet is cheaper?" → "What is your view on whether a buffet is cheaper?".
// When nothing of substance is left, the node's question is asked instead; the neutral question
// never points at a "that" the candidate cannot resolve.
func (nf *nodeFilters) rewriteLeading(sentence, phrase string) string {
	claim := removePhrase(sentence, phrase)
	claim = strings.Trim(claim, " ,;:-?.!¿¡؟،")
	rw := nf.lv.pack.LeadingRewrite
	claim = nf.lv.trimLeads(claim, rw.ClaimLeads)
	// The pack's template keeps the claim ("What is your view on whether {claim}?"); a pack
	// without one asks the node's question.
	if len(strings.Fields(claim)) >= 3 && rw.Template != "" {
		if !rw.KeepCase {
			claim = lowerFirst(claim)
		}
		return strings.Replace(rw.Template, "{claim}", claim, 1)
	}
	if nf.prompt != "" && hasQuestion(nf.prompt) {
		return nf.prompt
	}
	return nf.lv.line(lang.LineApproach)
}

// removePhrase removes the words of normalized phrase from sentence, matching word by word as
// normalizeWords does ("wouldn't" matches "wouldnt", "ألا" matches "الا").
func removePhrase(sentence, phrase string) string {
	want := strings.Fields(phrase)
	type word struct {
		norm       string
		start, end int
	}
	var words []word
	start := -1
	var cur strings.Builder
	flush := func(end int) {
		if start >= 0 {
			words = append(words, word{cur.String(), start, end})
			cur.Reset()
			start = -1
		}
	}
	for i, r := range sentence {
		switch {
		case r >= 0x300 && (unicode.Is(unicode.Mn, r) || r == '\u0640') && start >= 0:
			// a combining mark or tatweel: part of the word, as normalizeWords reads it
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = i
			}
			cur.WriteRune(lang.FoldRune(unicode.ToLower(r)))
		case (r == '\'' || r == '’') && start >= 0:
		default:
			flush(i)
		}
	}
	flush(len(sentence))
	for i := 0; i+len(want) <= len(words); i++ {
		ok := true
		for j, w := range want {
			if words[i+j].norm != w {
				ok = false
				break
			}
		}
		if ok {
			from, to := words[i].start, words[i+len(want)-1].end
			return strings.TrimSpace(sentence[:from] + " " + sentence[to:])
		}
	}
	return sentence
}

// summarizeKeepingQuestion shortens text to max runes from its start and always ends with its
// closing question, so the candidate still hears what they are asked.
func summarizeKeepingQuestion(text string, max int) string {
	q := lastQuestionIn(text)
	if q == "" {
		return splitToFit(text, max)[0]
	}
	qn := utf8.RuneCountInString(q)
	if qn >= max {
		return cutAtWord(q, max)
	}
	var kept []string
	n := 0
	for _, s := range SplitSentences(text) {
		if s == q {
			break
		}
		sn := utf8.RuneCountInString(s)
		if n+sn+1+qn > max {
			break
		}
		kept = append(kept, s)
		n += sn + 1
	}
	return strings.TrimSpace(strings.Join(kept, " ") + " " + q)
}

// fitParts splits text into parts of at most the length filter's maxChars, so a limit holds
// for every spoken part, streamed or not.
func (nf *nodeFilters) fitParts(text string) []string {
	if utf8.RuneCountInString(text) <= nf.maxChars {
		return []string{text}
	}
	return splitToFit(text, nf.maxChars)
}

// lengthAction is the length filter's configured action.
func (nf *nodeFilters) lengthAction() string {
	if a := nf.action[spec.FilterLength]; a != "" {
		return a
	}
	return "summarize"
}
