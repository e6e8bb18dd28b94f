package audio

import (
	"context"
	"strings"
	"unicode"
)

// SpeakOptions shape one piece of examiner speech.
type SpeakOptions struct {
	// Voice is provider specific: an espeak-ng voice ("en-us") or an OpenAI voice ("alloy").
	// Empty means the provider's default for Language.
	Voice string
	// Speed is a multiplier: 1 is normal, below 1 slower (slow_down), above 1 faster. Zero
	// means 1.
	Speed float64
	// Language is a BCP-47 tag ("en", "en-GB"); empty means "en".
	Language string
}

func (o SpeakOptions) speed() float64 {
	if o.Speed <= 0 {
		return 1
	}
	return o.Speed
}

// Synthesizer turns text into speech. Implementations must be safe for concurrent use.
type Synthesizer interface {
	Synthesize(ctx context.Context, text string, opts SpeakOptions) (Clip, error)
}

// Speed bounds and the step of one slow_down request.
const (
	MinSpeed      = 0.5
	MaxSpeed      = 2.0
	SlowDownSteps = 0.8
)

// SlowerSpeed is the speed after one slow_down command: 20% slower, never below MinSpeed.
func SlowerSpeed(current float64) float64 {
	if current <= 0 {
		current = 1
	}
	return max(MinSpeed, current*SlowDownSteps)
}

// SplitSentences cuts text into sentences so synthesis of the first can start playing while
// the rest is produced. It splits after . ! ? … (and runs of them, with closing quotes or
// brackets) followed by a space, and keeps very short pieces ("Of course.") attached to the
// next one so a provider is not called for two words, except the one a line opens with: an
// examiner's acknowledgement ("Thank you.", "Right.") is said again and again, so on its own
// it is played from the speech cache at once while the rest is synthesised. Whitespace is
// normalised; nothing else changes.
func SplitSentences(text string) []string {
	words := strings.Fields(text)
	var out []string
	var cur []string
	for _, w := range words {
		cur = append(cur, w)
		if endsSentence(w) && (len(out) == 0 || len(strings.Join(cur, " ")) >= 12) {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, " "))
	}
	return out
}

func endsSentence(w string) bool {
	w = strings.TrimRightFunc(w, func(r rune) bool {
		return r == '"' || r == '\'' || r == ')' || r == ']' || r == '”' || r == '’' || r == '»'
	})
	if w == "" {
		return false
	}
	last := []rune(w)[len([]rune(w))-1]
	if last != '.' && last != '!' && last != '?' && last != '…' {
		return false
	}
	// "e.g." "Mr." "a.m.": an abbreviation is a short word with an inner dot or a known title.
	core := strings.TrimRight(w, ".!?…")
	if last == '.' && (strings.Contains(core, ".") || isTitle(core) || (len([]rune(core)) == 1 && unicode.IsLetter([]rune(core)[0]))) {
		return false
	}
	return true
}

func isTitle(w string) bool {
	switch strings.ToLower(w) {
	case "mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc":
		return true
	}
	return false
}
