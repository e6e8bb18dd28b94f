package audio

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os/exec"
	"strings"
)

// Espeak is the offline synthesizer: espeak-ng, run once per sentence.
type Espeak struct {
	bin     string
	voice   string
	baseWPM int
	log     *slog.Logger
}

// EspeakOption configures NewEspeak.
type EspeakOption func(*Espeak) error

// WithEspeakBinary sets the espeak-ng executable (default "espeak-ng" on PATH).
func WithEspeakBinary(path string) EspeakOption {
	return func(e *Espeak) error {
		if path == "" {
			return fmt.Errorf("%w: empty espeak-ng path", ErrInvalidConfig)
		}
		e.bin = path
		return nil
	}
}

// WithEspeakVoice fixes the voice (e.g. "en-gb"); by default it comes from the language.
func WithEspeakVoice(v string) EspeakOption {
	return func(e *Espeak) error {
		if strings.TrimSpace(v) == "" || strings.ContainsAny(v, " \t\n") {
			return fmt.Errorf("%w: espeak-ng voice %q", ErrInvalidConfig, v)
		}
		e.voice = v
		return nil
	}
}

// WithEspeakWPM sets the words per minute at speed 1 (default 165, a calm examiner pace).
func WithEspeakWPM(wpm int) EspeakOption {
	return func(e *Espeak) error {
		if wpm < 80 || wpm > 450 {
			return fmt.Errorf("%w: espeak-ng %d words per minute (want 80..450)", ErrInvalidConfig, wpm)
		}
		e.baseWPM = wpm
		return nil
	}
}

// WithEspeakLogger sets the logger.
func WithEspeakLogger(l *slog.Logger) EspeakOption {
	return func(e *Espeak) error { return setLogger(&e.log, l) }
}

// NewEspeak finds espeak-ng and returns the synthesizer.
func NewEspeak(opts ...EspeakOption) (*Espeak, error) {
	e := &Espeak{bin: "espeak-ng", baseWPM: 165, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		if err := o(e); err != nil {
			return nil, err
		}
	}
	path, err := exec.LookPath(e.bin)
	if err != nil {
		return nil, fmt.Errorf("%w: espeak-ng not found (install the espeak-ng package): %w", ErrTTS, err)
	}
	e.bin = path
	return e, nil
}

// WPM is the espeak-ng rate for a speed multiplier: baseWPM×speed, within espeak's 80..450.
func (e *Espeak) WPM(speed float64) int {
	if speed <= 0 {
		speed = 1
	}
	return int(math.Round(min(450, max(80, float64(e.baseWPM)*speed))))
}

// VoiceFor picks the espeak-ng voice: the fixed one, else opts.Voice when it is not an
// OpenAI voice name, else the language ("en" → "en-us", "en-GB" → "en-gb").
func (e *Espeak) VoiceFor(opts SpeakOptions) string {
	if e.voice != "" {
		return e.voice
	}
	if v := strings.TrimSpace(opts.Voice); v != "" && !isOpenAIVoice(v) && !strings.ContainsAny(v, " \t\n") {
		return v
	}
	lang := strings.ToLower(strings.TrimSpace(opts.Language))
	switch lang {
	case "", "en":
		return "en-us"
	}
	return strings.ReplaceAll(lang, "_", "-")
}

// Synthesize speaks text with espeak-ng and returns its 22.05 kHz output.
func (e *Espeak) Synthesize(ctx context.Context, text string, opts SpeakOptions) (Clip, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Clip{Rate: SampleRate}, nil
	}
	voice := e.VoiceFor(opts)
	cmd := exec.CommandContext(ctx, e.bin, "-v", voice, "-s", fmt.Sprint(e.WPM(opts.speed())), "--stdout", "--stdin")
	cmd.Stdin = strings.NewReader(text)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return Clip{}, fmt.Errorf("%w: espeak-ng: %w", ErrTTS, ctx.Err())
		}
		return Clip{}, fmt.Errorf("%w: espeak-ng voice %q: %w: %s", ErrTTS, voice, err, strings.TrimSpace(stderr.String()))
	}
	clip, err := ReadWAV(&stdout)
	if err != nil {
		return Clip{}, fmt.Errorf("%w: espeak-ng output: %w", ErrTTS, err)
	}
	e.log.Debug("espeak-ng synthesised", "voice", voice, "chars", len(text), "duration", clip.Duration())
	return clip, nil
}

func isOpenAIVoice(v string) bool {
	switch strings.ToLower(v) {
	case "alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer", "verse":
		return true
	}
	return false
}
