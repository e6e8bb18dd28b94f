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

var (
	hintPhrases = []string{"hint", "hints", "a clue", "as a clue", "here is a clue", "try mentioning", "you should mention",
		"you should say", "you could mention", "you might mention", "what im looking for", "what i am looking for",
		"the key is", "the trick is", "the key word", "remember that the"}
	revealPhrases = []string{"the answer is", "the correct answer", "the right answer", "the answer would be", "the solution is",
		"the best answer", "the expected answer", "the model answer", "the ideal answer"}
	judgementPhrases = []string{"thats correct", "that is correct", "correct answer", "exactly right", "thats right", "that is right",
		"youre right", "you are right", "well done", "excellent", "great answer", "good answer", "perfect", "brilliant",
		"spot on", "impressive", "good job", "great job", "nice work", "very good", "good point", "great point",
		"youre doing great", "you are doing great", "on the right track", "thats wrong", "that is wrong", "thats incorrect",
		"that is incorrect", "not quite right", "thats not right", "wrong answer", "poor answer", "weak answer", "bad answer",
		"good thinking", "great thinking", "nicely done", "fantastic", "wonderful answer", "strong answer",
		// A verdict is a judgement too.
		"you pass this", "you passed this", "youve passed", "you have passed", "you fail this", "you failed this",
		"youve failed", "you have failed"}
	equityPhrases = []string{"your accent", "your english", "your age", "for your age", "for someone your age", "for a woman",
		"for a man", "for a girl", "for a foreigner", "non native", "nonnative", "where are you from", "where are you really from",
		"your background", "people like you", "someone like you", "your gender", "your religion", "your disability",
		"your nationality", "your ethnicity", "are you married", "do you have children", "since youre struggling",
		"since you are struggling", "make it easier for you", "an easier question", "a simpler question for you",
		"let me make it easier", "ill make it easier", "go easy on you"}
)

type phraseSet struct {
	name    spec.FilterName
	action  string
	why     string
	phrases phraseIndex
}

// integritySets are the guardrails' phrase sets in one language: the English built-ins with the
// pack's hint, verdict, praise and equity vocabularies added.
func (lv *langVocab) integritySets() []phraseSet {
	v := lv.pack.Vocabulary
	return []phraseSet{
		{FilterHintRefusal, "drop_hint", "hint", newPhraseIndex(union(hintPhrases, v.Hint))},
		{FilterForbiddenAction, "drop", "", nil}, // reveal + judgement, below
		{FilterEquity, "drop", "remark on the candidate's person or ability", newPhraseIndex(union(equityPhrases, v.Equity))},
	}
}

var (
	hintRefusals = newPhraseIndex(normAll([]string{"cant give", "cannot give", "can not give", "not able to give", "no hints", "not give", "wont give", "unable to give"}))
	revealNorm   = newPhraseIndex(normAll(revealPhrases))
)

func normAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = normPhrase(p)
	}
	return out
}

// forbiddenMatch names the forbidden action a normalized text commits, or "": an answer
// revealed, a judging phrase (English's and the pack's verdict and praise phrases), or a verdict
// in any wording by the verdict detector.
func forbiddenMatch(judgement phraseIndex, text, norm string, verdicts *verdictIndex) filterWhy {
	if m := revealNorm.first(norm); m != "" {
		return filterWhy{Reason: "reveals an answer", Phrase: m}
	}
	if m := judgement.first(norm); m != "" {
		return filterWhy{Reason: "evaluative praise or judgement", Phrase: m}
	}
	// A verdict in any wording (verdict.go): the class, not a list of phrases.
	if why := verdicts.detectIn(text, norm); why != "" {
		return filterWhy{Reason: "verdict", Phrase: why}
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
				return forbiddenMatch(lv.judgement, raw, n, verdicts)
			}
			if m := set.phrases.first(n); m != "" {
				if set.name == FilterHintRefusal && hintRefusals.first(n) != "" {
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

// neutralWords are procedural words an examiner uses on any topic: a probe made of them
// ("Can you explain your reasoning in more detail?") is never off topic, and neither is a
// controller's line (help, the interruption), which passes the same filters.
var neutralWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("explain explaining reasoning reason reasons detail details elaborate example examples " +
		"describe approach expand clarify justify stop lets moment pause continue ready start next point points idea ideas " +
		"thoughts thought view views opinion consider considering thinking mean means meant choose choice decide decision " +
		"first second third further else specific specifically concrete situation part topic talk discuss said says mentioned " +
		"earlier before already right okay sure happen happens work works change difference important main step steps " +
		"walk through same other another instead rather exactly prefer preferred move finish done need needs want wants " +
		"comes going sounds able happy carry carried would could might thing things word words sense clear understand " +
		"understood repeat rephrase slowly take break ahead minute minutes seconds pick back return answer answers " +
		// The exam's own procedure, as the controller's lines say it (help, the interruption).
		"exam exams oral questions slow down sorry because technical problem saved") {
		m[w] = true
	}
	return m
}()
