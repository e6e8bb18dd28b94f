package roomcheck

import (
	"context"
	"strings"
	"sync"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime/headless"
)

// stepRecognizer is the bot's recogniser in a spoken room run: what it hears of the step being
// spoken has its confidence capped by the step's (headless.TurnStep.HeardConfidence), as
// `examtui test --audio` does, so a script's low-confidence line meets the confidence gate in
// a room too. The line's first words, or all of it, read with the line's punctuation
// (punctuate), as a recogniser that writes punctuation (Whisper) reads them. The player sets
// the step before speaking it and waits for the reply before the next one, so every utterance
// of a line is transcribed under its own step.
type stepRecognizer struct {
	audio.Recognizer
	mu   sync.Mutex
	step headless.TurnStep
}

// speaking names the step whose line the candidate says next.
func (r *stepRecognizer) speaking(t headless.TurnStep) {
	r.mu.Lock()
	r.step = t
	r.mu.Unlock()
}

func (r *stepRecognizer) Transcribe(ctx context.Context, u audio.Utterance) (audio.Transcript, error) {
	tr, err := r.Recognizer.Transcribe(ctx, u)
	if err != nil {
		return tr, err
	}
	r.mu.Lock()
	step := r.step
	r.mu.Unlock()
	if line := step.Say; line != nil || step.Interrupt != nil {
		if line == nil {
			line = step.Interrupt
		}
		tr.Text = punctuate(tr.Text, headless.SpokenText(*line))
	}
	if step.Confidence == nil {
		return tr, nil
	}
	if !tr.HasConfidence { // no doubt reported: the recogniser counts as sure
		tr.Confidence, tr.MinConfidence, tr.HasConfidence = 1, 1, true
	}
	tr.Confidence = step.HeardConfidence(tr.Confidence)
	tr.MinConfidence = step.HeardConfidence(tr.MinConfidence)
	return tr, nil
}

// punctuate writes heard, a recognition without punctuation, as line writes it when heard is
// line's first words or all of it: "we could open a second buffet line" of "We could open a
// second buffet line, or …" is "We could open a second buffet line,". Anything else is left
// as heard.
func punctuate(heard, line string) string {
	want := strings.Fields(audio.NormalizeForGrammar(heard))
	if len(want) == 0 {
		return heard
	}
	written := strings.Fields(line)
	n := 0 // words of line, as the grammar spells them, covered so far
	for i, w := range written {
		for _, g := range strings.Fields(audio.NormalizeForGrammar(w)) {
			if n >= len(want) || want[n] != g {
				return heard
			}
			n++
		}
		if n == len(want) {
			return strings.Join(written[:i+1], " ")
		}
	}
	return heard
}
