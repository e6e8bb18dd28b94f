package audio

import (
	"strings"
	"time"
)

// TurnEnd is what the words of a turn so far say about whether it is over.
type TurnEnd int

// Turn-end readings.
const (
	// TurnUnsure: too few words to tell; the ordinary delay applies.
	TurnUnsure TurnEnd = iota
	// TurnComplete: the words read as a finished answer; the short delay applies.
	TurnComplete
	// TurnTrailing: the words stop mid-thought ("um", "and", "because", a list still rising);
	// the long delay applies.
	TurnTrailing
	// TurnSure: a complete answer of a few words, on no filler, that the recogniser does not
	// flag (ClassifyTranscript); the shortest delay applies (SureEndpointingDelay), or what the
	// endpointer learnt of the candidate's pauses.
	TurnSure
)

func (t TurnEnd) String() string {
	switch t {
	case TurnComplete:
		return "complete"
	case TurnTrailing:
		return "trailing"
	case TurnSure:
		return "sure"
	default:
		return "unsure"
	}
}

// DefaultCompleteEndpointingDelay is the silence that ends a turn whose words read as complete.
const DefaultCompleteEndpointingDelay = 250 * time.Millisecond

// DefaultSureEndpointingDelay is the silence that ends a turn read as TurnSure.
const DefaultSureEndpointingDelay = 150 * time.Millisecond

// sureWords is how many words a complete answer needs before its turn may end after the
// shortest wait.
const sureWords = 4

// FailedConfidence is the recogniser confidence below which a transcript is treated as a
// failed recognition, and never shortens a wait: exp(-1), Whisper's own threshold for a failed
// decode (an avg_logprob under -1.0; its no-speech test, no_speech_prob over 0.6, also lands
// under it through SegmentConfidence). It is a veto, not a grant: a confidence above it says
// the words were heard, not that the candidate has finished (docs/voice.md).
const FailedConfidence = 0.3679

// fillers are words a speaker says while thinking; a turn that stops on one is never sure.
var fillers = map[string]bool{"um": true, "uh": true, "er": true, "erm": true, "hmm": true, "mm": true, "ah": true,
	"well": true, "like": true, "so": true, "actually": true, "basically": true, "anyway": true, "yeah": true, "okay": true,
	"ok": true, "right": true, "know": true, "mean": true}

// ClassifyTranscript is ClassifyTurn with what the recogniser says of its own words: a complete
// answer of at least four words that does not stop on a filler ("well", "you know", "I mean")
// is TurnSure, unless the recogniser flags the transcript as a failed recognition (a segment
// under FailedConfidence). A recogniser that reports no confidence flags nothing. How long a
// sure answer waits is the endpointer's business: the shortest wait, or longer once the
// candidate has shown they pause inside such answers (Endpointer.LearnedWait).
func ClassifyTranscript(t Transcript) TurnEnd { return englishTrailing.ClassifyTranscript(t) }

// ClassifyTranscript is ClassifyTranscript in w's language: ClassifyTurn with w's trailing
// words, and a turn that stops on an English filler or on one of w's words is never sure.
func (w TrailingWords) ClassifyTranscript(t Transcript) TurnEnd {
	end := w.ClassifyTurn(t.Text)
	if end != TurnComplete || Flagged(t) {
		return end
	}
	words := strings.Fields(strings.ToLower(t.Text))
	if len(words) < sureWords {
		return end
	}
	last := strings.Trim(words[len(words)-1], `.,!?;:"'()`)
	if fillers[last] || w.one[strings.TrimSpace(foldWord(last))] {
		return end
	}
	return TurnSure
}

// Flagged reports whether the recogniser flagged t as a failed recognition: one of its
// segments (or the whole, without segments) has a confidence under FailedConfidence.
func Flagged(t Transcript) bool {
	return t.HasConfidence && min(t.Confidence, t.MinConfidence) < FailedConfidence
}

// minCompleteWords is how many words a turn needs before it can read as complete: "yes" may
// be the start of "yes, because…".
const minCompleteWords = 3

// ClassifyTurn reads a partial transcript: trailing when it stops on a word that cannot end an
// English sentence (LooksUnfinished), complete when it has a few words and ends on a sentence
// mark or an ordinary word, unsure otherwise.
func ClassifyTurn(text string) TurnEnd { return classifyTurn(englishTrailing, text) }

func classifyTurn(w TrailingWords, text string) TurnEnd {
	text = strings.TrimSpace(text)
	if text == "" || text == InterimText {
		return TurnUnsure
	}
	if w.LooksUnfinished(text) {
		return TurnTrailing
	}
	if len(strings.Fields(text)) < minCompleteWords {
		return TurnUnsure
	}
	return TurnComplete
}
