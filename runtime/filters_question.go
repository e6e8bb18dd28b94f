package runtime

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/examtui/examtui/spec"
)

// FilterOneQuestion keeps the examiner to one question per line (docs/exam-format.md, "One
// question per turn"). "Ask one question at a time" in a role message does not hold a model to
// it; this always-on guardrail does. It keeps the first question and every sentence that is not
// a question, and drops the questions after the first:
//   - the first question is the one that follows from what the candidate just said; the ones
//     stacked after it are add-ons;
//   - on streamed speech the first question may already have been said when the second
//     arrives, and a said sentence cannot be taken back: keeping the first is the one rule that
//     gives a streamed reply and the same reply validated whole the same words.
//
// It runs after topic_containment, before length and leading_question, inside runFilters'
// fixed point, so every other filter sees the one question that is left.
const FilterOneQuestion spec.FilterName = "one_question"

// interrogativeStarts open a question written without its question mark ("What would you do.").
var interrogativeStarts = map[string]bool{"what": true, "why": true, "how": true, "who": true, "whom": true,
	"whose": true, "when": true, "where": true, "which": true}

// auxiliaryStarts open a question when a subject follows them ("Could you say more."): alone,
// "Have a think" or "Do take your time" are not questions.
var auxiliaryStarts = map[string]bool{"do": true, "does": true, "did": true, "can": true, "could": true, "would": true,
	"will": true, "should": true, "shall": true, "have": true, "has": true, "is": true, "are": true, "was": true,
	"were": true, "may": true, "might": true}

var questionSubjects = map[string]bool{"you": true, "we": true, "they": true, "i": true, "it": true, "there": true,
	"this": true, "that": true, "he": true, "she": true, "the": true, "your": true, "anyone": true}

// leadIns are the words that may come before a question's first word ("And what …", "So, how …").
var leadIns = map[string]bool{"and": true, "so": true, "also": true, "now": true, "then": true, "but": true, "okay": true,
	"ok": true, "right": true, "finally": true, "lastly": true}

// questionParts splits text into sentences, and cuts after every run of question marks too, so
// "What?Why?" is two questions: the parts the one_question filter counts and keeps.
func questionParts(text string) []string {
	var out []string
	for _, s := range SplitSentences(text) {
		for s != "" {
			i := strings.IndexRune(s, '?')
			if i < 0 {
				out = append(out, s)
				break
			}
			j := i + 1
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if r != '?' && !isCloser(r) && !isTerminator(r) {
					break
				}
				j += size
			}
			if part := strings.TrimSpace(s[:j]); part != "" {
				out = append(out, part)
			}
			s = strings.TrimSpace(s[j:])
		}
	}
	return out
}

// isQuestion reports whether a part (questionParts) asks something: it ends in a question mark,
// or reads as an interrogative sentence without one.
func isQuestion(part string) bool {
	if strings.ContainsRune(part, '?') {
		return true
	}
	words := strings.FieldsFunc(strings.ToLower(part), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	})
	for len(words) > 1 && leadIns[words[0]] {
		words = words[1:]
	}
	if len(words) > 0 {
		if i := strings.IndexRune(words[0], '\''); i > 0 { // "what's", "how'd"
			words[0] = words[0][:i]
		}
	}
	switch {
	case len(words) < 2:
		return false
	case interrogativeStarts[words[0]]:
		return true
	case auxiliaryStarts[words[0]]:
		return questionSubjects[words[1]]
	}
	return false
}

// QuestionCount is how many questions the one_question filter finds in text.
func QuestionCount(text string) int {
	n := 0
	for _, p := range questionParts(text) {
		if isQuestion(p) {
			n++
		}
	}
	return n
}

// oneQuestionFilter keeps the first question of text and what is not a question.
func oneQuestionFilter(text, _ string) (string, string, bool) {
	parts := questionParts(text)
	kept := make([]string, 0, len(parts))
	questions, first := 0, ""
	for _, p := range parts {
		if !isQuestion(p) {
			kept = append(kept, p)
			continue
		}
		questions++
		if questions == 1 {
			first = p
			kept = append(kept, p)
		}
	}
	if questions <= 1 {
		return text, "", false
	}
	return strings.Join(kept, " "), fmt.Sprintf("%d questions in one line: kept the first (%q)", questions, TruncateRunes(first, 80)), true
}
