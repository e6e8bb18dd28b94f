package runtime

import (
	"fmt"
	"strings"
	"sync"
)

// Vocabulary holds the words of one exam language that the controller's rule-based judgements
// use: which short utterances only bring the candidate back from a pause, the candidate's
// command phrases, the listener's backchannels, and the class of sentences that tell the
// candidate how they did (verdict.go). Every judgement reads its words
// from here, never from literals of its own, so another language is one more Vocabulary.
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
	// Commands are the candidate's command phrases, tried in order (ClassifyCommand).
	Commands []CommandPhrases
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

// EnglishVocabulary is the default vocabulary.
func EnglishVocabulary() *Vocabulary {
	return &Vocabulary{
		Language: "en",
		Return: strings.Fields("ready back continue continuing go going on ahead carry resume resuming start " +
			"here fine alright right good sure yeah yep yes ok okay sorry again now all set done finished break"),
		Fillers: strings.Fields("a an the i im me my we us you your can could would will please " +
			"just maybe perhaps do to of for on by it this that one bit little moment now again ok okay so um uh hmm er " +
			"well oh and but is are be was if let lets think thank thanks there"),
		Verdict:      englishVerdict(),
		Commands:     englishCommands,
		Backchannels: []string{"mm", "mmm", "hmm", "mhm", "mm-hmm", "uh-huh", "yeah", "yes", "yep", "ok", "okay", "right", "sure", "i see", "got it", "alright", "aha", "oh"},
	}
}

// defaultVocabulary is the vocabulary of a controller built without WithVocabulary.
var defaultVocabulary = EnglishVocabulary()

// WithVocabulary sets the words of the exam's language (default EnglishVocabulary).
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
