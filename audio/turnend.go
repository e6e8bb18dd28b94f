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
)

func (t TurnEnd) String() string {
	switch t {
	case TurnComplete:
		return "complete"
	case TurnTrailing:
		return "trailing"
	default:
		return "unsure"
	}
}

// DefaultCompleteEndpointingDelay is the silence that ends a turn whose words read as complete.
const DefaultCompleteEndpointingDelay = 250 * time.Millisecond

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
