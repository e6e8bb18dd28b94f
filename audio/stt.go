package audio

import (
	"context"
	"math"
	"time"
)

// Recognizer turns one utterance into text. Implementations must be safe for concurrent use.
type Recognizer interface {
	Transcribe(ctx context.Context, u Utterance) (Transcript, error)
}

// Segment is one recognised stretch of an utterance.
type Segment struct {
	Text    string
	StartMs int64 // relative to the utterance's first sample
	EndMs   int64
	// Confidence is 0..1 (see SegmentConfidence).
	Confidence   float64
	AvgLogprob   float64
	NoSpeechProb float64
}

// Transcript is a recogniser's answer for one utterance.
type Transcript struct {
	Text string
	// Confidence is the duration-weighted mean of the segment confidences, MinConfidence the
	// lowest; both are 1 when the provider gave no per-segment detail (HasConfidence false):
	// with no evidence of doubt the controller's sttMinConfidence check must not reject.
	Confidence    float64
	MinConfidence float64
	HasConfidence bool
	Segments      []Segment
	Language      string
	Duration      time.Duration
	// IsFinal is false for a partial (interim) transcript.
	IsFinal bool
}

// PartialFunc receives interim transcripts while a turn is still being recognised. A provider
// that cannot stream sends one partial with Text "…" when recognition starts, so a UI can show
// that words are on their way.
type PartialFunc func(Transcript)

// PartialRecognizer is a Recognizer that reports interim transcripts while it works (a
// streaming endpoint). Voice uses it when the recognizer offers it, and otherwise sends a
// single InterimText partial.
type PartialRecognizer interface {
	Recognizer
	TranscribeWithPartials(ctx context.Context, u Utterance, partial PartialFunc) (Transcript, error)
}

// InterimText is the placeholder partial text of providers that cannot stream.
const InterimText = "…"

// SegmentConfidence maps Whisper-style segment scores to 0..1:
//
//	confidence = exp(avg_logprob) × (1 − no_speech_prob)
//
// exp(avg_logprob) is the geometric mean of the token probabilities (avg_logprob is the mean
// log probability of the segment's tokens), and (1 − no_speech_prob) discounts segments the
// model itself thinks are not speech. A clean segment (avg_logprob −0.1, no_speech 0.01) scores
// 0.90; a mumbled one (−1.0, 0.3) scores 0.26. The result is clamped to [0, 1].
func SegmentConfidence(avgLogprob, noSpeechProb float64) float64 {
	if math.IsNaN(avgLogprob) || math.IsNaN(noSpeechProb) {
		return 0
	}
	c := math.Exp(min(avgLogprob, 0)) * (1 - min(max(noSpeechProb, 0), 1))
	return min(max(c, 0), 1)
}

// summarize fills Confidence and MinConfidence from the segments.
func (t *Transcript) summarize() {
	if len(t.Segments) == 0 {
		t.Confidence, t.MinConfidence, t.HasConfidence = 1, 1, false
		return
	}
	t.HasConfidence = true
	t.MinConfidence = 1
	var sum, weight float64
	for _, s := range t.Segments {
		t.MinConfidence = min(t.MinConfidence, s.Confidence)
		w := float64(max(s.EndMs-s.StartMs, 1))
		sum += s.Confidence * w
		weight += w
	}
	t.Confidence = sum / weight
}

// Billed is a speech provider whose server bills per use (a recogniser per minute of audio, a
// voice per character): BilledModel is the model its requests name, the price table's key.
// Local engines (espeak-ng, pocketsphinx) do not implement it: they cost nothing.
type Billed interface {
	BilledModel() string
}
