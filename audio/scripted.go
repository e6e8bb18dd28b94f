package audio

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// ScriptedConfig shapes SpeakAndRecognize.
type ScriptedConfig struct {
	Synth    Synthesizer    // nil: espeak-ng
	Speak    SpeakOptions   // voice, speed, language of the scripted candidate
	Endpoint EndpointConfig // zero: defaults
	// LeadIn is silence before the speech (default 500 ms), so the noise floor is learned.
	LeadIn time.Duration
	// NoiseDB, when below zero, lays white noise at that RMS level (dBFS) under the whole
	// signal, lead-in and pauses included, as a room's noise floor; zero means none.
	NoiseDB float64
	// NoiseSeed makes the noise reproducible (the same seed gives the same samples).
	NoiseSeed uint64
}

// Timing is what one scripted turn cost.
type Timing struct {
	Speech        time.Duration // synthesised speech length
	Utterances    int           // turns the endpointer cut (1 when the text was one turn)
	EndpointingMs float64       // audio time from the end of speech to the endpoint decision
	STTMs         float64       // wall time spent in the recogniser
}

// SpeakAndRecognize synthesises text as the candidate, feeds it frame by frame through the
// VAD and endpointer exactly as captured audio would be, and recognises every utterance cut:
// the real audio path of `examtui test --audio` without a microphone. Texts split into several
// utterances are joined; the confidence is the lowest of them.
func SpeakAndRecognize(ctx context.Context, text string, rec Recognizer, cfg ScriptedConfig) (Transcript, Timing, error) {
	if rec == nil {
		return Transcript{}, Timing{}, fmt.Errorf("%w: nil recognizer", ErrInvalidConfig)
	}
	synth := cfg.Synth
	if synth == nil {
		e, err := NewEspeak()
		if err != nil {
			return Transcript{}, Timing{}, err
		}
		synth = e
	}
	if cfg.LeadIn <= 0 {
		cfg.LeadIn = 500 * time.Millisecond
	}
	if cfg.NoiseDB > 0 || cfg.NoiseDB < -100 {
		return Transcript{}, Timing{}, fmt.Errorf("%w: noise floor %.1f dBFS (want -100..0)", ErrInvalidConfig, cfg.NoiseDB)
	}
	ep, err := NewEndpointer(cfg.Endpoint)
	if err != nil {
		return Transcript{}, Timing{}, err
	}
	clip, err := synth.Synthesize(ctx, text, cfg.Speak)
	if err != nil {
		return Transcript{}, Timing{}, err
	}
	c16, err := clip.To16k()
	if err != nil {
		return Transcript{}, Timing{}, err
	}
	tail := ep.Config().MaxEndpointingDelay + 200*time.Millisecond
	signal := make([]int16, 0, len(c16.Samples)+int((cfg.LeadIn+tail)/time.Second*SampleRate)+2*SampleRate)
	signal = append(signal, make([]int16, msToSamples(cfg.LeadIn.Milliseconds()))...)
	signal = append(signal, c16.Samples...)
	signal = append(signal, make([]int16, msToSamples(tail.Milliseconds()))...)
	if cfg.NoiseDB < 0 {
		AddNoise(signal, cfg.NoiseDB, cfg.NoiseSeed)
	}
	timing := Timing{Speech: c16.Duration()}
	var utts []*Utterance
	for off := 0; off+FrameSamples <= len(signal); off += FrameSamples {
		r := ep.Push(Frame{Samples: signal[off : off+FrameSamples], Offset: int64(off), Captured: time.Now()})
		if r.Utterance != nil {
			utts = append(utts, r.Utterance)
		}
	}
	if u := ep.Flush(); u != nil {
		utts = append(utts, u)
	}
	if len(utts) == 0 {
		return Transcript{}, timing, fmt.Errorf("%w in the synthesised speech of %q", ErrNoSpeech, text)
	}
	timing.Utterances = len(utts)
	last := utts[len(utts)-1]
	timing.EndpointingMs = float64(last.DecidedMs - last.EndMs)
	out := Transcript{IsFinal: true, Confidence: 1, MinConfidence: 1}
	var texts []string
	for _, u := range utts {
		start := time.Now()
		t, err := rec.Transcribe(ctx, *u)
		timing.STTMs += float64(time.Since(start).Microseconds()) / 1000
		if err != nil {
			return Transcript{}, timing, err
		}
		texts = append(texts, t.Text)
		out.Confidence = min(out.Confidence, t.Confidence)
		out.MinConfidence = min(out.MinConfidence, t.MinConfidence)
		out.HasConfidence = out.HasConfidence || t.HasConfidence
		out.Language = t.Language
		out.Duration += t.Duration
		for _, s := range t.Segments {
			off := u.SamplesStartMs - utts[0].SamplesStartMs
			s.StartMs += off
			s.EndMs += off
			out.Segments = append(out.Segments, s)
		}
	}
	out.Text = strings.Join(texts, " ")
	return out, timing, nil
}
