package runtime

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
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

// questionRules tell whether a sentence asks something, in one language (the pack's
// questions): its question marks, the words that open a question written without one
// ("What would you do.", "Pourquoi ce choix."), the auxiliaries that open one when a subject
// follows ("Could you say more.", "Pouvez-vous préciser."; alone, "Have a think" is no
// question), and the lead-ins that may come first ("And what …", "Alors, comment …").
type questionRules struct {
	marks, openers                               string // question marks; opening ones ("¿")
	interrogatives, auxiliaries, subjects, leads map[string]bool
}

func newQuestionRules(q lang.Questions) *questionRules {
	set := func(ws []string) map[string]bool {
		m := make(map[string]bool, len(ws))
		for _, w := range ws {
			m[questionWord(w)] = true
		}
		return m
	}
	return &questionRules{marks: strings.Join(q.Marks, ""), openers: strings.Join(q.OpeningMarks, ""),
		interrogatives: set(q.Interrogatives), auxiliaries: set(q.Auxiliaries), subjects: set(q.Subjects), leads: set(q.LeadIns)}
}

// questionWord is a word as isQuestion compares it: lower case, Arabic letter forms folded.
func questionWord(w string) string {
	return strings.Map(func(r rune) rune { return lang.FoldRune(unicode.ToLower(r)) }, strings.TrimSpace(w))
}

// isMark reports a question mark of the language that ends a question.
func (q *questionRules) isMark(r rune) bool { return strings.ContainsRune(q.marks, r) }

// isAnyMark reports a question mark of the language, opening or closing.
func (q *questionRules) isAnyMark(r rune) bool {
	return q.isMark(r) || strings.ContainsRune(q.openers, r)
}

// questionParts splits text into sentences, and cuts after every run of question marks too, so
// "What?Why?" is two questions: the parts the one_question filter counts and keeps.
func (q *questionRules) questionParts(text string) []string {
	var out []string
	for _, s := range SplitSentences(text) {
		for s != "" {
			i := strings.IndexFunc(s, func(r rune) bool { return q.isMark(r) })
			if i < 0 {
				out = append(out, s)
				break
			}
			_, n := utf8.DecodeRuneInString(s[i:])
			j := i + n
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if !(q.isMark(r)) && !isCloser(r) && !isTerminator(r) {
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

// isQuestion reports whether a part (questionParts) asks something: it holds a question mark,
// or reads as an interrogative sentence without one.
func (q *questionRules) isQuestion(part string) bool {
	if strings.IndexFunc(part, q.isAnyMark) >= 0 {
		return true
	}
	words := strings.FieldsFunc(questionWord(part), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	})
	for len(words) > 1 && q.leads[words[0]] {
		words = words[1:]
	}
	if len(words) > 0 {
		if i := strings.IndexAny(words[0], "'’"); i > 0 { // "what's", "how'd", "qu'est"
			words[0] = words[0][:i]
		}
	}
	switch {
	case len(words) < 2:
		return false
	case q.interrogatives[words[0]]:
		return true
	case q.auxiliaries[words[0]]:
		return q.subjects[words[1]]
	}
	return false
}

// QuestionCount is how many questions the one_question filter of an English exam finds in
// text (QuestionCountIn for another language).
func QuestionCount(text string) int { return QuestionCountIn(nil, text) }

// QuestionCountIn is how many questions the one_question filter of an exam in pack p's
// language finds in text (English for nil).
func QuestionCountIn(p *lang.Pack, text string) int { return langVocabFor(p).questionRules.count(text) }

func (q *questionRules) count(text string) int {
	n := 0
	for _, p := range q.questionParts(text) {
		if q.isQuestion(p) {
			n++
		}
	}
	return n
}

// oneQuestionFilter keeps the first question of text and what is not a question.
func (q *questionRules) oneQuestionFilter(text, _ string) (string, string, bool) {
	parts := q.questionParts(text)
	kept := make([]string, 0, len(parts))
	questions, first := 0, ""
	for _, p := range parts {
		if !q.isQuestion(p) {
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
