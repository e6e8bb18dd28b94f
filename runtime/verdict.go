package runtime

import (
	"slices"
	"strings"
	"unicode"

	"github.com/examtui/examtui/spec/lang"
)

// The verdict detector: a sentence that tells the candidate how they did — pass or fail, right
// or wrong, marks, a score, points, a grade or level, "N out of M", praise of correctness ("well
// done"), a comparison to a standard — in any wording, said to the candidate ("you", "your") or
// about their answer ("that answer", "it"). It judges the class by the sentence's structure
// (who is judged, a verb or copula, a judging word), not by a list of whole phrases, so a
// rewording is caught as surely as the phrase it rewords. It runs inside the forbidden_action
// guardrail (forbiddenMatch), so inside runFilters, the one pipeline every spoken line passes.
// Its words are the language pack's verdictWords (VerdictVocabulary); the figures on the
// committed corpora (testdata/verdict, testdata/verdicts) are in docs/exam-format.md and
// docs/languages.md.

// VerdictVocabulary is the verdict detector's words for one language: the language pack's
// verdictWords (lang.VerdictWords).
type VerdictVocabulary = lang.VerdictWords

// verdictIndex is a VerdictVocabulary made into sets of normalized words once (phrases for
// praise and "out of").
type verdictIndex struct {
	targets, copulaFree, copulas, softeners, judgements, nouns, articles, notAfter wordSet
	outcomes, outcomeModifiers, outcomeAfter, outcomeNotBefore, sections           wordSet
	outcomeVerbs, completedVerbs, perfVerbs, mannerVerbs, auxMannerVerbs           wordSet
	manners, strictManners, awardVerbs, awardLinks                                 wordSet
	scoreNouns, weakScoreNouns, gradeNouns, awardNouns, qualifiers, determiners    wordSet
	comparisons, standards, openers, interrogatives, numbers, topicVerbs           wordSet
	outOf                                                                          [][]string
	praise                                                                         phraseIndex
	opening                                                                        []string // opening question marks ("¿")
	reach                                                                          int      // VerbReach
}

// wordSet is a set of normalized words.
type wordSet map[string]bool

// newWordSet normalizes every entry of ws and holds each of its words.
func newWordSet(ws []string) wordSet {
	m := make(wordSet, len(ws))
	for _, p := range ws {
		for _, w := range strings.Fields(normPhrase(p)) {
			m[w] = true
		}
	}
	return m
}

// newVerdictIndex indexes v; opening are the language's opening question marks ("¿").
func newVerdictIndex(v *VerdictVocabulary, opening []string) *verdictIndex {
	x := &verdictIndex{targets: newWordSet(v.Targets), copulaFree: newWordSet(v.CopulaFreeTargets), copulas: newWordSet(v.Copulas),
		softeners: newWordSet(v.Softeners), judgements: newWordSet(v.Judgements), nouns: newWordSet(v.AnswerNouns),
		articles: newWordSet(v.Articles), notAfter: newWordSet(v.NotAfter), outcomes: newWordSet(v.Outcomes),
		outcomeModifiers: newWordSet(v.OutcomeModifiers), outcomeAfter: newWordSet(v.OutcomeAfter),
		outcomeNotBefore: newWordSet(v.OutcomeNotBefore), sections: newWordSet(v.SectionWords),
		outcomeVerbs: newWordSet(v.OutcomeVerbs), completedVerbs: newWordSet(v.CompletedVerbs), perfVerbs: newWordSet(v.PerformanceVerbs),
		mannerVerbs: newWordSet(v.MannerVerbs), auxMannerVerbs: newWordSet(v.AuxiliaryMannerVerbs), manners: newWordSet(v.Manners),
		strictManners: newWordSet(v.StrictManners), awardVerbs: newWordSet(v.AwardVerbs), awardLinks: newWordSet(v.AwardLinks),
		scoreNouns: newWordSet(v.ScoreNouns), weakScoreNouns: newWordSet(v.WeakScoreNouns), gradeNouns: newWordSet(v.GradeNouns),
		awardNouns: newWordSet(v.AwardNouns), qualifiers: newWordSet(v.ScoreQualifiers), determiners: newWordSet(v.ScoreDeterminers),
		comparisons: newWordSet(v.Comparisons), standards: newWordSet(v.Standards), openers: newWordSet(v.Openers),
		interrogatives: newWordSet(v.Interrogatives), numbers: newWordSet(v.Numbers), topicVerbs: newWordSet(v.TopicVerbs), praise: newPhraseIndex(normAll(v.Praise))}
	x.opening, x.reach = opening, v.VerbReach
	if x.reach <= 0 {
		x.reach = 3
	}
	// A copula-free target is a target.
	for w := range x.copulaFree {
		x.targets[w] = true
	}
	for _, p := range v.OutOf {
		if ws := strings.Fields(normPhrase(p)); len(ws) > 0 {
			x.outOf = append(x.outOf, ws)
		}
	}
	return x
}

// DetectVerdict reports whether a sentence tells the candidate how they did, and why, with the
// default (English) vocabulary.
func DetectVerdict(sentence string) (string, bool) {
	return defaultVocabulary.DetectVerdict(sentence)
}

// DetectVerdict reports whether a sentence tells the candidate how they did, and why, in the
// vocabulary's language.
func (v *Vocabulary) DetectVerdict(sentence string) (string, bool) {
	why := v.verdictIndex().detectIn(sentence, normalizeWords(sentence))
	return why, why != ""
}

// detectIn names the verdict a sentence (or clause) gives, or "": text is the sentence as
// written, norm its normalizeWords. A sentence that opens with an opening question mark
// ("¿Es correcto comparar…?") asks.
func (x *verdictIndex) detectIn(text, norm string) string {
	t := strings.TrimSpace(text)
	for _, m := range x.opening {
		if strings.HasPrefix(t, m) {
			return x.detect(norm, true)
		}
	}
	return x.detect(norm, false)
}

// detect names the verdict a normalized sentence gives, or "": asked tells that the sentence
// opens as a question whatever its first word.
func (x *verdictIndex) detect(norm string, asked bool) string {
	w := strings.Fields(norm)
	if len(w) == 0 {
		return ""
	}
	if m := x.praise.first(norm); m != "" {
		return "praise of correctness: " + m
	}
	if x.openers[w[0]] && (len(w) == 1 || !x.interrogatives[w[1]]) && !asked {
		return "a verdict opens the sentence: " + w[0]
	}
	question := asked || x.interrogatives[w[0]]
	for i := range w {
		if why := x.at(w, i, question); why != "" {
			return why
		}
	}
	return ""
}

// within reports whether a word of set occurs in w[i+1 : i+1+n], and where.
func within(w []string, i, n int, set map[string]bool) int {
	for j := i + 1; j < len(w) && j <= i+n; j++ {
		if set[w[j]] {
			return j
		}
	}
	return -1
}

func isDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

// at looks for a verdict that starts at word i.
func (x *verdictIndex) at(w []string, i int, question bool) string {
	isNumber := func(s string) bool { return isDigits(s) || x.numbers[s] }
	cur := w[i]
	// An examiner awarding marks: "I'd give you a 7", "I'd mark that as correct", "that earns you two points"
	// (a number awarded is a mark when it ends the sentence, has an article or a score noun:
	// "I'll give you an example with ten shops" awards nothing).
	if x.awardVerbs[cur] && !question {
		for k := i + 1; k < len(w) && k <= i+5; k++ {
			if isNumber(w[k]) && (x.scoreValue(w, k) || x.articles[w[k-1]]) || x.score(w[k]) && !x.topic(w) {
				return "marks awarded: " + strings.Join(w[i:k+1], " ")
			}
			if x.awardLinks[w[k]] && k+1 < len(w) && (x.judgements[w[k+1]] || x.outcomes[w[k+1]] || x.articles[w[k+1]] && k+2 < len(w) && x.outcomes[w[k+2]]) {
				return "marks awarded: " + strings.Join(w[i:k+2], " ")
			}
		}
	}
	// The award verb last: "Ich würde das als richtig bewerten".
	if x.awardLinks[cur] && i+1 < len(w) && (x.judgements[w[i+1]] || x.outcomes[w[i+1]]) && !question {
		for _, s := range w[i+2:] {
			if x.awardVerbs[s] {
				return "marks awarded: " + strings.Join(w[i:i+2], " ") + " … " + s
			}
		}
	}
	// "N out of M", "N/M" (normalized "N M") near a score noun or a target.
	if isNumber(cur) {
		// A one-word "out of" ("sur", "von", "de") is common: the score ends the sentence, has a
		// score noun after it or an outcome or award verb before it, so "zwei von drei
		// Anwohnern" stays a fact.
		if n := x.outOfAt(w, i+1); n > 0 && i+1+n < len(w) && isNumber(w[i+1+n]) &&
			(n > 1 || x.scoreValue(w, i+1+n) || x.verbBefore(w, i)) {
			return "a score: " + strings.Join(w[i:i+2+n], " ")
		}
		if j := within(w, i, 1, x.scoreNouns); j > 0 && !question && !x.topic(w) {
			return "a score: " + strings.Join(w[i:j+1], " ")
		}
		if i+1 < len(w) && isNumber(w[i+1]) && x.anyTarget(w) && !question {
			return "a score: " + cur + "/" + w[i+1]
		}
	}
	// "full marks", "top marks", "a band 6 answer", "level B2", "grade A".
	if x.qualifiers[cur] && i+1 < len(w) && x.score(w[i+1]) {
		return "a score: " + cur + " " + w[i+1]
	}
	if x.gradeNouns[cur] && i+1 < len(w) && gradeLike(w[i+1]) && (!x.weakScoreNouns[cur] || x.anyTarget(w)) {
		return "a grade: " + cur + " " + w[i+1]
	}
	if x.scoreNouns[cur] && x.anyTarget(w) && !question {
		// "your grade is a B", "your mark for this part is 4": a score noun of yours with a value.
		if j := within(w, i, 5, x.copulas); j > 0 && j+1 < len(w) {
			rest := w[j+1:]
			for k, r := range rest {
				if k > 2 {
					break
				}
				if isNumber(r) || gradeLike(r) || x.outcomes[r] || x.judgements[r] || x.qualifiers[r] {
					return "a score given: " + cur + " " + strings.Join(rest[:k+1], " ")
				}
			}
		}
	}
	// An outcome as a noun: "a pass", "a clear fail".
	if x.outcomes[cur] && i > 0 && x.outcomeModifiers[w[i-1]] && !x.outcomeBlocked(w, i) {
		return "an outcome: " + w[i-1] + " " + cur
	}
	if !x.targets[cur] {
		return ""
	}
	// An answer noun judged after it: "Réponse fausse.", "Respuesta correcta." (the adjective
	// follows its noun in French, Spanish and Arabic).
	if x.nouns[cur] && i+1 < len(w) && x.judgements[w[i+1]] && !question && (i+2 == len(w) || !x.notAfter[w[i+2]]) {
		return "a judgement of the answer: " + cur + " " + w[i+1]
	}
	// target + copula + [softeners] + judgement: "that answer is correct", "you're wrong".
	j := i + 1
	if x.copulaFree[cur] {
		j = i // the contraction (or the language) carries the copula
	} else {
		for j < len(w) && j <= i+4 && !x.copulas[w[j]] && !x.outcomeVerbs[w[j]] && !x.perfVerbs[w[j]] {
			j++
		}
	}
	k := j + 1
	if j == i {
		k = i + 1
	}
	for k < len(w) && x.softeners[w[k]] {
		k++
	}
	if j < len(w) && j <= i+4 && k < len(w) && !question {
		// "C'est une réponse correcte": an answer noun, then its judgement.
		if x.nouns[w[k]] && (x.copulas[w[j]] || j == i) {
			m := k + 1
			for m < len(w) && x.softeners[w[m]] && !x.judgements[w[m]] {
				m++
			}
			if m < len(w) && x.judgements[w[m]] {
				return "a judgement of the answer: " + strings.Join(w[i:m+1], " ")
			}
		}
		if x.judgements[w[k]] && (k+1 == len(w) || !x.notAfter[w[k+1]]) && (x.copulas[w[j]] || j == i) {
			if k+1 < len(w) && x.nouns[w[k+1]] || k+1 == len(w) || !x.articleBefore(w, k) {
				return "a judgement of the answer: " + strings.Join(w[i:k+1], " ")
			}
		}
		// After a copula an article cannot block ("you have failed the budget task").
		if x.outcomes[w[k]] && (!x.outcomeBlocked(w, k) || x.articles[w[k+1]]) {
			return "an outcome: " + strings.Join(w[i:k+1], " ")
		}
	}
	// target + outcome verb: "you failed that part", "you scored highly", "you got it right".
	for v := i; v < len(w) && v <= i+x.reach; v++ {
		if x.completedVerbs[w[v]] && v > i && !question {
			return "a judgement of how they did: " + strings.Join(w[i:v+1], " ")
		}
		if !x.outcomeVerbs[w[v]] && !x.perfVerbs[w[v]] && !x.awardVerbs[w[v]] {
			continue
		}
		verb := w[v]
		next := ""
		if v+1 < len(w) {
			next = w[v+1]
		}
		switch {
		case x.outcomes[verb] && (!question || next == "") && !x.outcomeBlocked(w, v):
			if next == "" || x.outcomeAfter[next] {
				return "an outcome: " + strings.Join(w[i:v+1], " ")
			}
		}
		for k := v + 1; k < len(w) && k <= v+5; k++ {
			switch {
			case x.score(w[k]) && !x.topic(w) && (!question && k <= v+x.reach || k > v+1 && (x.qualifiers[w[k-1]] || isNumber(w[k-1]) || x.determiners[w[k-1]])):
				return "a score: " + strings.Join(w[i:k+1], " ")
			case x.awardNouns[w[k]]:
				return "a score: " + strings.Join(w[i:k+1], " ")
			case x.outcomes[w[k]] && k > 0 && x.outcomeModifiers[w[k-1]]:
				return "an outcome: " + strings.Join(w[i:k+1], " ")
			case (x.perfVerbs[verb] || x.mannerVerbs[verb] || x.auxMannerVerbs[verb]) &&
				x.manners[w[k]] && !question && (k+1 == len(w) || !x.notAfter[w[k+1]]) && (!x.auxMannerVerbs[verb] || x.strictManners[w[k]]):
				return "a judgement of how they did: " + strings.Join(w[i:k+1], " ")
			}
		}
	}
	// A comparison with a standard: "that meets the standard", "you're below average".
	if c := within(w, i, 4, x.comparisons); c > 0 && !question {
		if s := within(w, c, 5, x.standards); s > 0 {
			return "a comparison with a standard: " + strings.Join(w[i:s+1], " ")
		}
	}
	return ""
}

// scoreValue reports whether the number at k is a score's value: the sentence ends there, or a
// score noun or "out of" follows it ("a 7", "14 points", "14 sur 20"), not another noun
// ("ten shops").
func (x *verdictIndex) scoreValue(w []string, k int) bool {
	return k+1 == len(w) || x.scoreNouns[w[k+1]] || x.outOfAt(w, k+1) > 0
}

// verbBefore reports an outcome or award verb before word i ("Vous obtenez douze sur vingt").
func (x *verdictIndex) verbBefore(w []string, i int) bool {
	for _, s := range w[:i] {
		if x.outcomeVerbs[s] || x.awardVerbs[s] {
			return true
		}
	}
	return false
}

// topic reports a verb of speaking in the sentence ("you raised two points", "Sie haben zwei
// Punkte angesprochen"): its score nouns are what was said, not a score.
func (x *verdictIndex) topic(w []string) bool {
	for _, s := range w {
		if x.topicVerbs[s] {
			return true
		}
	}
	return false
}

// score reports a score noun that gives a score on its own (not a weak one: "level").
func (x *verdictIndex) score(s string) bool { return x.scoreNouns[s] && !x.weakScoreNouns[s] }

// outcomeBlocked reports whether the word after the outcome at i makes it something else
// ("pass to"), unless a section of the exam follows ("passed the exam").
func (x *verdictIndex) outcomeBlocked(w []string, i int) bool {
	return i+1 < len(w) && x.outcomeNotBefore[w[i+1]] && !(i+2 < len(w) && x.sections[w[i+2]])
}

// outOfAt is the length of the "out of" phrase at w[i:], or 0.
func (x *verdictIndex) outOfAt(w []string, i int) int {
	for _, p := range x.outOf {
		if i+len(p) <= len(w) && slices.Equal(w[i:i+len(p)], p) {
			return len(p)
		}
	}
	return 0
}

// articleBefore reports whether the judgement at k follows an article ("a good ..."), which
// makes it qualify the noun after it: a verdict only when that noun is an answer noun.
func (x *verdictIndex) articleBefore(w []string, k int) bool {
	return k > 0 && x.articles[w[k-1]]
}

func (x *verdictIndex) anyTarget(w []string) bool {
	for _, s := range w {
		if x.targets[s] {
			return true
		}
	}
	return false
}

// gradeLike is a grade's value: a letter a–f, a digit, or a CEFR-like level (b2).
func gradeLike(s string) bool {
	if isDigits(s) {
		return true
	}
	if len(s) == 1 && s[0] >= 'a' && s[0] <= 'f' {
		return true
	}
	return len(s) == 2 && s[0] >= 'a' && s[0] <= 'c' && s[1] >= '1' && s[1] <= '2'
}
