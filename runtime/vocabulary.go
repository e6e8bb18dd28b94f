package runtime

import (
	"fmt"
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
// source of a language's words; what a pack does not hold (return words, the verdict
// detector's structural words) is English's.
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
	v.once.Do(func() { v.verdicts = newVerdictIndex(&v.Verdict) })
	return v.verdicts
}

// English words a pack does not hold: the return words, fillers and backchannels of conduct's
// rules (a pack's backchannels, when it has them, replace these for its language).
var (
	englishReturn = strings.Fields("ready back continue continuing go going on ahead carry resume resuming start " +
		"here fine alright right good sure yeah yep yes ok okay sorry again now all set done finished break")
	englishFillers = strings.Fields("a an the i im me my we us you your can could would will please " +
		"just maybe perhaps do to of for on by it this that one bit little moment now again ok okay so um uh hmm er " +
		"well oh and but is are be was if let lets think thank thanks there")
	englishBackchannels = []string{"mm", "mmm", "hmm", "mhm", "mm-hmm", "uh-huh", "yeah", "yes", "yep", "ok", "okay", "right", "sure", "i see", "got it", "alright", "aha", "oh"}
)

// EnglishVocabulary is the default vocabulary: the one built from the shipped English pack.
func EnglishVocabulary() *Vocabulary { return vocabularyFrom(lang.English()) }

// vocabularyFrom builds the Vocabulary of a language pack: its command phrases, courtesy words,
// confirm and cancel words and backchannels; the verdict detector runs on the English words it
// knows in every language (the pack's verdict and praise phrases are added by the filters).
func vocabularyFrom(p *lang.Pack) *Vocabulary {
	v := &Vocabulary{
		Language: p.Language, Return: englishReturn, Fillers: englishFillers, Verdict: englishVerdict(),
		Politeness: p.Politeness, Affirmatives: p.Affirmatives, Negatives: p.Negatives,
		Backchannels: englishBackchannels,
	}
	if base, _, _ := strings.Cut(p.Language, "-"); base != "en" && len(p.Backchannels) > 0 {
		v.Backchannels = p.Backchannels
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

func (v *Vocabulary) has(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}
