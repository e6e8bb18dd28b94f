package app

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
)

// meterSpeech wraps the paid speech providers (audio.Billed) so that every request they serve
// is recorded on the exam as a speech_usage event: the seconds of audio a recogniser was sent,
// the characters a voice was sent. Every path that recognises or speaks for an exam (the
// local microphone path, the room bot, a worker's bot) goes through it. Local engines are
// returned as they are: they cost nothing, and wrapping would hide the streaming interfaces
// they implement.
func (x *Exam) meterSpeech(rec audio.Recognizer, synth audio.Synthesizer) (audio.Recognizer, audio.Synthesizer) {
	if b, ok := rec.(audio.Billed); ok {
		rec = meteredRecognizer{Recognizer: rec, model: b.BilledModel(), meter: x.speechMeter()}
	}
	if b, ok := synth.(audio.Billed); ok {
		synth = meteredSynthesizer{Synthesizer: synth, model: b.BilledModel(), meter: x.speechMeter()}
	}
	return rec, synth
}

// Warm warms the recogniser underneath (audio.Warmer): metering must not hide it.
func (m meteredRecognizer) Warm(ctx context.Context) error { return audio.Warm(ctx, m.Recognizer) }

// Warm warms the voice underneath.
func (m meteredSynthesizer) Warm(ctx context.Context) error { return audio.Warm(ctx, m.Synthesizer) }

// meteredRecognizer counts the audio of each request that came back with a transcript (a
// failed request is not billed by the servers we know of).
type meteredRecognizer struct {
	audio.Recognizer
	model string
	meter *speechMeter
}

func (m meteredRecognizer) Transcribe(ctx context.Context, u audio.Utterance) (audio.Transcript, error) {
	t, err := m.Recognizer.Transcribe(ctx, u)
	if err == nil {
		m.meter.add(runtime.SpeechUsage{Stage: runtime.SpeechSTT, Model: m.model,
			Seconds: float64(len(u.Samples)) / audio.SampleRate})
	}
	return t, err
}

// meteredSynthesizer counts the characters of each line it was asked to speak, as sent.
type meteredSynthesizer struct {
	audio.Synthesizer
	model string
	meter *speechMeter
}

func (m meteredSynthesizer) Synthesize(ctx context.Context, text string, opts audio.SpeakOptions) (audio.Clip, error) {
	c, err := m.Synthesizer.Synthesize(ctx, text, opts)
	m.count(text, err)
	return c, err
}

// SynthesizeStream meters a streamed line as Synthesize does a whole one (audio.StreamSynthesizer).
func (m meteredSynthesizer) SynthesizeStream(ctx context.Context, text string, opts audio.SpeakOptions, part func(audio.Clip)) (audio.Clip, error) {
	c, err := audio.SynthesizeStream(ctx, m.Synthesizer, text, opts, part)
	m.count(text, err)
	return c, err
}

func (m meteredSynthesizer) count(text string, err error) {
	if n := utf8.RuneCountInString(strings.TrimSpace(text)); err == nil && n > 0 {
		m.meter.add(runtime.SpeechUsage{Stage: runtime.SpeechTTS, Model: m.model, Characters: int64(n)})
	}
}

// speechMeter records speech usage on the controller from its own goroutine: the recogniser
// and the voice hand a request's count over and go on, never waiting for the store's write
// (it would add to the turn's latency or delay the examiner's first audio). Exam.Close records
// what is still pending before it closes the controller.
type speechMeter struct {
	c   *runtime.Controller
	log *slog.Logger

	mu      sync.Mutex
	pending []runtime.SpeechUsage
	closed  bool
	wake    chan struct{}
	done    chan struct{}
	stopped chan struct{}
}

// speechMeter is the exam's meter, started on first use.
func (x *Exam) speechMeter() *speechMeter {
	x.meterOnce.Do(func() {
		m := &speechMeter{c: x.Controller, log: x.log, wake: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
		go m.run()
		x.meter = m
	})
	return x.meter
}

func (m *speechMeter) add(u runtime.SpeechUsage) {
	if m == nil {
		return // the exam was closed before its speech path started: nothing to record on
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		m.log.Warn("speech usage after the exam was closed: not recorded", "stage", u.Stage, "model", u.Model,
			"seconds", u.Seconds, "characters", u.Characters)
		return
	}
	m.pending = append(m.pending, u)
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

func (m *speechMeter) run() {
	defer close(m.stopped)
	for {
		select {
		case <-m.wake:
			m.flush()
		case <-m.done:
			m.flush()
			return
		}
	}
}

func (m *speechMeter) flush() {
	m.mu.Lock()
	batch := m.pending
	m.pending = nil
	m.mu.Unlock()
	for _, u := range batch {
		if err := m.c.RecordSpeechUsage(u); err != nil {
			level := slog.LevelWarn
			if errors.Is(err, runtime.ErrClosed) {
				level = slog.LevelDebug
			}
			m.log.Log(context.Background(), level, "speech usage not recorded", "stage", u.Stage, "model", u.Model, "err", err)
		}
	}
}

// close records what is pending and stops the meter; later counts are logged, not recorded.
func (m *speechMeter) close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	m.mu.Unlock()
	close(m.done)
	<-m.stopped
}
