package spec

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkScenarioHeard warns when no line the candidate hears on entry (scenarioIntro,
// conversationPrompt) carries any word of the scenario, nor says a situation of its own. The scenario goes to the examiner
// only, so a question such as "What do you think of this plan?" then reaches the candidate
// without the plan.
func (c *checker) checkScenarioHeard(path, label, scenario, intro, prompt string) {
	words := contentWords(scenario)
	if len(words) == 0 || c.bad(path+".scenario") {
		return // nothing to compare (a script written without spaces, or an empty scenario)
	}
	heard := contentWords(intro + " " + prompt)
	if len(heard) >= ownSituationWords {
		return // the lines say a situation of their own (a variant's case in its question)
	}
	for w := range words {
		for h := range heard {
			if sameStem(w, h) {
				return
			}
		}
	}
	at := path + ".scenario"
	if !c.present(at) {
		at = path
	}
	c.warnf(at, "the scenario goes to the examiner only: say the situation in scenarioIntro, spoken word for word before the question, or in the conversationPrompt",
		"%s: the candidate never hears the scenario: no line they hear on entry carries its words", label)
}

// ownSituationWords is how many content words the lines the candidate hears need to be taken
// as telling a situation of their own: "The buffet queues are long. What would you do?" has
// three, "What do you think of this plan?" one.
const ownSituationWords = 3

var contentWordPattern = regexp.MustCompile(`\p{L}+`)

// contentWords are the words of s of four letters or more that are not among the commonest
// English function words, lower-cased. A text in a script written without spaces between
// words (Chinese, Japanese, Thai…) gives none: word overlap says nothing there.
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range contentWordPattern.FindAllString(strings.ToLower(s), -1) {
		if unspaced(w) {
			return nil
		}
		if utf8.RuneCountInString(w) >= 4 && !functionWords[w] {
			out[w] = true
		}
	}
	return out
}

func unspaced(w string) bool {
	for _, r := range w {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar) {
			return true
		}
	}
	return false
}

// sameStem: two words share their first five letters (or are equal when shorter), so
// "servers" and "server", "moving" and "moves" are not told apart by their endings.
func sameStem(a, b string) bool {
	const stem = 5
	ra, rb := []rune(a), []rune(b)
	if len(ra) < stem || len(rb) < stem {
		return a == b
	}
	return string(ra[:stem]) == string(rb[:stem])
}

var functionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`about above after again against also been before being below between both
		cannot could does doing down during each from further have having here into itself just more most
		much must nothing once only other over same should some such than that their theirs them then there these
		they this those through under until very were what when where which while whom whose will with would
		your yours you're think tell please describe explain give thank thanks`) {
		m[w] = true
	}
	return m
}()
