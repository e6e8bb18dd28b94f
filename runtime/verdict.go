package runtime

import (
	"strings"
	"unicode"
)

// The verdict detector: a sentence that tells the candidate how they did — pass or fail, right
// or wrong, marks, a score, points, a grade or level, "N out of M", praise of correctness ("well
// done"), a comparison to a standard — in any wording, said to the candidate ("you", "your") or
// about their answer ("that answer", "it"). It judges the class by the sentence's structure
// (who is judged, a verb or copula, a judging word), not by a list of whole phrases, so a
// rewording is caught as surely as the phrase it rewords. It runs inside the forbidden_action
// guardrail (forbiddenMatch), so inside runFilters, the one pipeline every spoken line passes.
// Its words come from the language's VerdictVocabulary; the figures on the committed corpus
// (testdata/verdict) are in docs/exam-format.md.

// VerdictVocabulary is the verdict detector's words for one language. Each list holds
// normalized words (lowercase, no punctuation, contractions joined: "youre").
type VerdictVocabulary struct {
	// Targets name who or what is judged: the candidate ("you", "your") or their answer.
	Targets []string
	// Copulas link a target to a judgement ("is", "was", "sounds").
	Copulas []string
	// Softeners may stand between a copula and its judgement ("not", "quite", "absolutely").
	Softeners []string
	// Judgements are words that say right, wrong, good or bad of an answer.
	Judgements []string
	// AnswerNouns are what a judgement may qualify ("a strong answer", "a good job").
	AnswerNouns []string
	// Outcomes are pass and fail and their kin: a verdict with a target, a verb or an article.
	Outcomes []string
	// OutcomeVerbs are what a candidate does to an outcome ("you passed", "you scored").
	OutcomeVerbs []string
	// AwardVerbs are what an examiner does with marks ("I'd give", "that earns").
	AwardVerbs []string
	// ScoreNouns are the units of a score ("marks", "points", "grade").
	ScoreNouns []string
	// ScoreQualifiers make a score noun a verdict without a number ("full marks").
	ScoreQualifiers []string
	// Performance verbs and manners: "you did well", "you answered it correctly".
	PerformanceVerbs, Manners []string
	// Standards are what an answer is compared with ("the pass mark"), after a Comparison.
	Comparisons, Standards []string
	// Praise is a judgement said on its own ("Well done.", "Spot on.").
	Praise []string
	// Openers judge when they open a sentence ("Correct, ...", "Exactly right.").
	Openers []string
	// NotAfter are words after a judgement that make it about something else ("good question").
	NotAfter []string
	// Interrogatives open a question that asks rather than judges ("What would be the right...").
	Interrogatives []string
	// OutOf is the "out of" of "N out of M".
	OutOf string
	// Numbers are the number words a score can be given in ("two points").
	Numbers []string
}

func englishVerdict() VerdictVocabulary {
	f := strings.Fields
	return VerdictVocabulary{
		Targets:   f("you youre youve youd youll your yours that thats this its it answer response reply analysis reasoning performance work result solution"),
		Copulas:   f("is was are were s seems seemed sounds sounded looks looked isnt wasnt arent werent be been being would will remains"),
		Softeners: f("not quite absolutely completely entirely exactly perfectly totally partly partially mostly largely very really so just 100 percent a an the clearly definitely simply also"),
		Judgements: f("correct incorrect right wrong accurate inaccurate excellent perfect great good strong weak poor mistaken flawless " +
			"outstanding superb brilliant fantastic impressive satisfactory unsatisfactory adequate inadequate acceptable unacceptable " +
			"sufficient insufficient true false spot exact wonderful terrible awful solid"),
		AnswerNouns: f("answer answers response responses reply one job attempt effort analysis explanation start solution idea suggestion proposal work point thinking reasoning"),
		Outcomes:    f("pass passed passing fail failed failing failure distinction merit"),
		OutcomeVerbs: f("pass passed passing fail failed failing flunk flunked score scored scoring scores earn earned earning earns " +
			"get got getting gets gain gained lose lost losing drop dropped achieve achieved deserve deserve deserved receive received " +
			"nail nailed ace aced have has"),
		AwardVerbs:       f("give giving gave mark marking marked award awarding awarded earns earned deserves deserved worth gets"),
		ScoreNouns:       f("mark marks point points score scores grade grades credit band level percent distinction merit"),
		ScoreQualifiers:  f("full top maximum max half zero no highest high low lower higher extra bonus perfect"),
		PerformanceVerbs: f("did done performed performing doing handled answered answering managed"),
		Manners: f("well badly poorly great brilliantly excellently perfectly nicely wonderfully superbly admirably impressively " +
			"correctly incorrectly right wrong fine good fantastically highly"),
		Comparisons: f("above below under over beyond meets meet met exceeds exceed exceeded short reached reach reaches falls fall fell better worse"),
		Standards: f("standard standards pass mark threshold benchmark expectations bar average requirements criteria level most " +
			"candidates best"),
		Praise: []string{"well done", "good job", "great job", "nice work", "good work", "great work", "nicely done", "nice one",
			"spot on", "nailed it", "bravo", "congratulations", "kudos", "well spotted", "top marks", "full marks", "exactly right",
			"exactly it", "on the right track", "nearly there", "almost there", "i was looking for", "we were looking for",
			"i was hoping for", "we wanted to hear", "i wanted to hear", "outstanding", "superb", "excellent", "brilliant", "perfect", "impressive", "fantastic", "well reasoned",
			"one of the best"},
		Openers:        f("correct incorrect wrong exactly precisely bingo"),
		NotAfter:       f("question questions way first step time"),
		Interrogatives: f("what how which who whom whose why when where whether if is are would could should does do did can"),
		OutOf:          "out of",
		Numbers:        f("one two three four five six seven eight nine ten eleven twelve twenty hundred half"),
	}
}

// verdictIndex is a VerdictVocabulary made into sets once.
type verdictIndex struct {
	v                                              *VerdictVocabulary
	targets, copulas, softeners, judgements, nouns map[string]bool
	outcomes, outcomeVerbs, awardVerbs, scoreNouns map[string]bool
	qualifiers, perfVerbs, manners                 map[string]bool
	comparisons, standards, openers, notAfter      map[string]bool
	interrogatives, numbers                        map[string]bool
	praise                                         phraseIndex
}

func newVerdictIndex(v *VerdictVocabulary) *verdictIndex {
	set := func(ws []string) map[string]bool {
		m := make(map[string]bool, len(ws))
		for _, w := range ws {
			m[w] = true
		}
		return m
	}
	return &verdictIndex{v: v, targets: set(v.Targets), copulas: set(v.Copulas), softeners: set(v.Softeners),
		judgements: set(v.Judgements), nouns: set(v.AnswerNouns), outcomes: set(v.Outcomes), outcomeVerbs: set(v.OutcomeVerbs),
		awardVerbs: set(v.AwardVerbs), scoreNouns: set(v.ScoreNouns), qualifiers: set(v.ScoreQualifiers),
		perfVerbs: set(v.PerformanceVerbs), manners: set(v.Manners), comparisons: set(v.Comparisons), standards: set(v.Standards),
		openers: set(v.Openers), notAfter: set(v.NotAfter), interrogatives: set(v.Interrogatives), numbers: set(v.Numbers), praise: newPhraseIndex(normAll(v.Praise))}
}

// DetectVerdict reports whether a sentence tells the candidate how they did, and why, with the
// default (English) vocabulary.
func DetectVerdict(sentence string) (string, bool) {
	return defaultVocabulary.DetectVerdict(sentence)
}

// DetectVerdict reports whether a sentence tells the candidate how they did, and why, in the
// vocabulary's language.
func (v *Vocabulary) DetectVerdict(sentence string) (string, bool) {
	why := v.verdictIndex().detect(normalizeWords(sentence))
	return why, why != ""
}

// detect names the verdict a normalized sentence (or clause) gives, or "".
func (x *verdictIndex) detect(norm string) string {
	w := strings.Fields(norm)
	if len(w) == 0 {
		return ""
	}
	if m := x.praise.first(norm); m != "" {
		return "praise of correctness: " + m
	}
	if x.openers[w[0]] && (len(w) == 1 || !x.interrogatives[w[1]]) {
		return "a verdict opens the sentence: " + w[0]
	}
	question := x.interrogatives[w[0]]
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
	// An examiner awarding marks: "I'd give you a 7", "I'd mark that as correct", "that earns you two points".
	if x.awardVerbs[cur] && !question {
		for k := i + 1; k < len(w) && k <= i+5; k++ {
			if isNumber(w[k]) || x.scoreNouns[w[k]] && w[k] != "level" {
				return "marks awarded: " + strings.Join(w[i:k+1], " ")
			}
			if w[k] == "as" && k+1 < len(w) && (x.judgements[w[k+1]] || x.outcomes[w[k+1]] || w[k+1] == "a" && k+2 < len(w) && x.outcomes[w[k+2]]) {
				return "marks awarded: " + strings.Join(w[i:k+2], " ")
			}
		}
	}
	// "N out of M", "N/M" (normalized "N M") near a score noun or a target.
	if isNumber(cur) {
		if i+3 < len(w) && w[i+1]+" "+w[i+2] == x.v.OutOf && isNumber(w[i+3]) {
			return "a score: " + strings.Join(w[i:i+4], " ")
		}
		if j := within(w, i, 1, x.scoreNouns); j > 0 && !question {
			return "a score: " + strings.Join(w[i:j+1], " ")
		}
		if i+1 < len(w) && isNumber(w[i+1]) && x.anyTarget(w) && !question {
			return "a score: " + cur + "/" + w[i+1]
		}
	}
	// "full marks", "top marks", "a band 6 answer", "level B2", "grade A".
	if x.qualifiers[cur] && i+1 < len(w) && x.scoreNouns[w[i+1]] && w[i+1] != "level" {
		return "a score: " + cur + " " + w[i+1]
	}
	if (cur == "band" || cur == "grade" || cur == "level") && i+1 < len(w) && gradeLike(w[i+1]) && (cur != "level" || x.anyTarget(w)) {
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
				if isNumber(r) || gradeLike(r) || x.outcomes[r] || x.judgements[r] || x.qualifiers[r] || r == "excellent" {
					return "a score given: " + cur + " " + strings.Join(rest[:k+1], " ")
				}
			}
		}
	}
	// An outcome as a noun: "a pass", "a clear fail".
	if x.outcomes[cur] && i > 0 && (w[i-1] == "a" || w[i-1] == "clear" || w[i-1] == "easy" || w[i-1] == "solid" || w[i-1] == "narrow" || w[i-1] == "definite") &&
		(i+1 == len(w) || w[i+1] != "safe") {
		return "an outcome: " + w[i-1] + " " + cur
	}
	if !x.targets[cur] {
		return ""
	}
	// target + copula + [softeners] + judgement: "that answer is correct", "you're wrong".
	j := i + 1
	if !strings.HasPrefix(cur, "you") || cur == "you" || cur == "your" {
		for j < len(w) && j <= i+4 && !x.copulas[w[j]] && !x.outcomeVerbs[w[j]] && !x.perfVerbs[w[j]] {
			j++
		}
	}
	if strings.HasPrefix(cur, "you") && cur != "you" && cur != "your" || cur == "thats" || cur == "its" {
		j = i // the contraction carries the copula
	}
	k := j + 1
	if j == i {
		k = i + 1
	}
	for k < len(w) && x.softeners[w[k]] {
		k++
	}
	if j < len(w) && j <= i+4 && k < len(w) && !question {
		if x.judgements[w[k]] && (k+1 == len(w) || !x.notAfter[w[k+1]]) && (x.copulas[w[j]] || j == i) {
			if k+1 < len(w) && x.nouns[w[k+1]] || k+1 == len(w) || !x.articleBefore(w, k) {
				return "a judgement of the answer: " + strings.Join(w[i:k+1], " ")
			}
		}
		if x.outcomes[w[k]] && (k+1 == len(w) || w[k+1] != "to") {
			return "an outcome: " + strings.Join(w[i:k+1], " ")
		}
	}
	// target + outcome verb: "you failed that part", "you scored highly", "you got it right".
	for v := i; v < len(w) && v <= i+3; v++ {
		if !x.outcomeVerbs[w[v]] && !x.perfVerbs[w[v]] && !x.awardVerbs[w[v]] {
			continue
		}
		verb := w[v]
		next := ""
		if v+1 < len(w) {
			next = w[v+1]
		}
		switch {
		case x.outcomes[verb] && (!question || next == "") && (next == "" || next != "to" && next != "the" || v+2 < len(w) && x.sectionWord(w[v+2])):
			if next == "on" || next == "in" || next == "" || next == "this" || next == "that" || next == "it" || next == "with" ||
				next == "easily" || next == "comfortably" || next == "the" || next == "all" || next == "so" {
				return "an outcome: " + strings.Join(w[i:v+1], " ")
			}
		}
		for k := v + 1; k < len(w) && k <= v+5; k++ {
			switch {
			case x.scoreNouns[w[k]] && w[k] != "level" && (!question && k <= v+3 || k > v+1 && (x.qualifiers[w[k-1]] || isNumber(w[k-1]) || w[k-1] == "a" || w[k-1] == "some" || w[k-1] == "few")):
				return "a score: " + strings.Join(w[i:k+1], " ")
			case x.scoreNouns[w[k]] && (w[k] == "credit" || w[k] == "distinction" || w[k] == "merit"):
				return "a score: " + strings.Join(w[i:k+1], " ")
			case x.outcomes[w[k]] && k > 0 && w[k-1] == "a":
				return "an outcome: " + strings.Join(w[i:k+1], " ")
			case (x.perfVerbs[verb] || verb == "got" || verb == "get" || verb == "scored" || verb == "scoring" || verb == "have" || verb == "has") &&
				x.manners[w[k]] && !question && (k+1 == len(w) || !x.notAfter[w[k+1]]) && (verb != "have" && verb != "has" || w[k] == "right" || w[k] == "wrong"):
				return "a judgement of how they did: " + strings.Join(w[i:k+1], " ")
			case verb == "nailed" || verb == "aced" || verb == "flunked":
				return "a judgement of how they did: " + strings.Join(w[i:v+1], " ")
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

// sectionWord names a part of the exam that can be passed or failed.
func (x *verdictIndex) sectionWord(s string) bool {
	switch s {
	case "part", "section", "question", "task", "exam", "test", "assessment", "module", "round", "stage", "scenario":
		return true
	}
	return false
}

// articleBefore reports whether the judgement at k follows an article ("a good ..."), which
// makes it qualify the noun after it: a verdict only when that noun is an answer noun.
func (x *verdictIndex) articleBefore(w []string, k int) bool {
	return k > 0 && (w[k-1] == "a" || w[k-1] == "an" || w[k-1] == "the")
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
