package runtime

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/examtui/examtui/spec/lang"
)

// Vocabulary holds the words of one exam language that the controller's rule-based judgements
// use: which short utterances only bring the candidate back from a pause, the candidate's
// command phrases and the courtesy words around them, the replies to "are you sure?", the
// listener's backchannels, and the class of sentences that tell the candidate how they did
// (verdict.go). Every judgement reads its words from here, never from literals of its own.
// The runtime builds it from the exam's language pack (vocabularyFor): the pack is the one
// source of a language's words, the return words and the verdict detector's word classes
// included.
type Vocabulary struct {
	// Language is the BCP 47 tag of the language ("en").
	Language string
	// Return lists the words of an utterance that only brings the candidate back from the
	// pause they asked for ("I'm ready", "okay, let's go on"): an utterance made only of these
	// (and Fillers) resumes the exam; any other is an answer, observed as one.
	Return []string
	// Fillers are courtesy and hesitation words that carry no answer.
	Fillers []string
	// Verdict is the verdict detector's vocabulary (verdict.go).
	Verdict VerdictVocabulary
	// Questions are the language's question marks and words: a sentence opening with an
	// opening mark ("¿") asks rather than judges.
	Questions lang.Questions
	// Commands are the candidate's command phrases, in the pack's command order; the longest
	// phrase an utterance holds decides (ClassifyCommandIn).
	Commands []CommandPhrases
	// Politeness are the courtesy words allowed around a command ("could you … please").
	Politeness []string
	// Affirmatives confirm a pending finish; Negatives cancel it (checked first).
	Affirmatives, Negatives []string
	// Backchannels are the short sounds of a listener ("mm-hmm", "yeah", "okay"): said over
	// the examiner's line, they are not an interruption.
	Backchannels []string

	once     sync.Once
	verdicts *verdictIndex
}

// verdictIndex is the verdict detector of the vocabulary, built once.
func (v *Vocabulary) verdictIndex() *verdictIndex {
	v.once.Do(func() { v.verdicts = newVerdictIndex(&v.Verdict, v.Questions.OpeningMarks) })
	return v.verdicts
}

// EnglishVocabulary is the default vocabulary: the one built from the shipped English pack.
func EnglishVocabulary() *Vocabulary { return vocabularyFrom(lang.English()) }

// vocabularyFrom builds the Vocabulary of a language pack: its return words, command phrases,
// courtesy words, confirm and cancel words, backchannels and verdict words. Every word is the
// pack's: no language borrows another's.
func vocabularyFrom(p *lang.Pack) *Vocabulary {
	v := &Vocabulary{
		Language: p.Language, Return: normWords(p.Return.Words), Fillers: normWords(p.Return.Fillers), Verdict: p.VerdictWords, Questions: p.Questions,
		Politeness: p.Politeness, Affirmatives: p.Affirmatives, Negatives: p.Negatives,
		Backchannels: p.Backchannels,
	}
	for _, name := range lang.CommandOrder {
		v.Commands = append(v.Commands, CommandPhrases{Command: Command(name), Phrases: normPhrases(p.Commands[name])})
	}
	return v
}

// vocabularies are the vocabularies built so far, one per pack (the shipped English pack's is
// defaultVocabulary).
var vocabularies = perPack[*Vocabulary]{build: func(p *lang.Pack) *Vocabulary {
	if p == lang.English() {
		return defaultVocabulary
	}
	return vocabularyFrom(p)
}}

// vocabularyFor is the Vocabulary of a pack (English for nil), built once per pack.
func vocabularyFor(p *lang.Pack) *Vocabulary { return vocabularies.get(p) }

// defaultVocabulary is the vocabulary of an English exam built without WithVocabulary.
var defaultVocabulary = EnglishVocabulary()

// WithVocabulary sets the words of the exam's language (default: the Vocabulary built from the
// exam's language pack).
func WithVocabulary(v *Vocabulary) Option {
	return func(o *options) error {
		if v == nil {
			return fmt.Errorf("%w: nil vocabulary", ErrInvalidOption)
		}
		o.vocab = v
		return nil
	}
}

// onlyReturns reports whether text is made only of words that bring the candidate back from a
// pause (or carry nothing): "Okay, I'm ready." does; "We could open a second line." does not.
func (v *Vocabulary) onlyReturns(text string) bool {
	for _, w := range strings.Fields(normalizeWords(text)) {
		if !v.has(v.Return, w) && !v.has(v.Fillers, w) {
			return false
		}
	}
	return true
}

// normWords is every word of the phrases, normalized (normPhrase), each once.
func normWords(ps []string) []string {
	var out []string
	for _, p := range ps {
		for _, w := range strings.Fields(normPhrase(p)) {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

func (v *Vocabulary) has(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}
