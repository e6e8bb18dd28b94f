package runtime

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/examtui/examtui/spec/lang"
)

// langVocab is what the output filters read from the exam's language pack, normalized once per
// pack: the pack's vocabularies added to the English built-ins (an examiner model can slip into
// English in any exam), the canned replacement lines, and the language's procedural words,
// which carry no topic (topic_containment, instruction_echo).
type langVocab struct {
	pack         *lang.Pack
	personaBreak []string
	leading      []string
	rubric       []string
	reassurance  []string
	// judgement are the judging phrases: English's with the pack's verdict and praise phrases;
	// reveal the phrases that reveal an answer; hintRefusals those that refuse a hint.
	judgement, reveal, hintRefusals phraseIndex
	// questions are the pack's question words; questionRules tell a question by them.
	questions     lang.Questions
	questionRules *questionRules
	// neutral are the words of the pack's own lines, politeness, question and common words:
	// a controller's line in the language never reads as off topic.
	neutral map[string]bool
}

// langVocabs are the filters' vocabularies built so far, one per pack.
var langVocabs = perPack[*langVocab]{build: newLangVocab}

// langVocabFor is the filters' vocabulary of a pack (English for nil), built once per pack.
func langVocabFor(p *lang.Pack) *langVocab { return langVocabs.get(p) }

func newLangVocab(p *lang.Pack) *langVocab {
	voc, en := p.Vocabulary, lang.English().Vocabulary
	lv := &langVocab{pack: p, neutral: map[string]bool{}, questions: p.Questions, questionRules: newQuestionRules(p.Questions),
		personaBreak: union(en.PersonaBreak, voc.PersonaBreak),
		leading:      union(en.Leading, voc.Leading),
		rubric:       union(en.Rubric, voc.Rubric),
		reassurance:  union(en.Praise, en.Verdict, voc.Praise, voc.Verdict),
	}
	addWords := func(ss ...[]string) {
		for _, s := range ss {
			for _, x := range s {
				for _, w := range strings.Fields(normPhrase(x)) {
					lv.neutral[w] = true
				}
			}
		}
	}
	var lines []string
	for _, k := range lang.LineKeys {
		lines = append(lines, p.Line(k))
	}
	addWords(lines, p.Politeness, voc.QuestionWords, p.CommonWords, p.TurnEnd.Trailing, voc.Stopwords, voc.Procedural,
		en.Stopwords, en.Procedural)
	for _, c := range lang.CommandOrder {
		addWords(p.Commands[c])
	}
	lv.judgement = newPhraseIndex(union(en.Verdict, en.Praise, voc.Verdict, voc.Praise))
	lv.reveal = newPhraseIndex(union(en.Reveal, voc.Reveal))
	lv.hintRefusals = newPhraseIndex(union(en.HintRefusal, voc.HintRefusal))
	return lv
}

// union is the normalized phrases of every list, each once, in order.
func union(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, p := range l {
			if n := normPhrase(p); n != "" && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// line is the pack's fixed line of a key.
func (lv *langVocab) line(k lang.LineKey) string { return lv.pack.Line(k) }

// procedural reports whether a normalized word is a procedural word (no topic) in English or
// the pack's language.
func (lv *langVocab) procedural(w string) bool { return lv.neutral[w] }

// stopwords are the English pack's function words (instruction_echo's content words).
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range lang.English().Vocabulary.Stopwords {
		m[normPhrase(w)] = true
	}
	return m
}()

// endsQuestion reports whether s ends in one of the language's question marks (closing
// quotes and brackets after it allowed).
func (lv *langVocab) endsQuestion(s string) bool {
	s = strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || isCloser(r) })
	r, _ := utf8.DecodeLastRuneInString(s)
	return lv.questionRules.isMark(r)
}
