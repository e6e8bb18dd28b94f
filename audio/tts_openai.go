package audio

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// OpenAISpeech synthesises through an OpenAI-compatible /audio/speech endpoint with go-openai,
// asking for WAV so no decoder is needed.
type OpenAISpeech struct {
	client *openai.Client
	model  string
	voice  string
	log    *slog.Logger
	// timeout bounds one speech request (0: only the caller's context), so a stalled voice
	// server cannot hold the examiner's line forever.
	timeout time.Duration
}

// OpenAITTSOption configures NewOpenAISpeech.
type OpenAITTSOption func(*OpenAISpeech) error

// WithTTSModel sets the model (default "tts-1").
func WithTTSModel(m string) OpenAITTSOption {
	return func(s *OpenAISpeech) error { return setNonBlank(&s.model, m, "TTS model") }
}

// WithTTSVoice sets the default voice (default "alloy"); SpeakOptions.Voice overrides it.
func WithTTSVoice(v string) OpenAITTSOption {
	return func(s *OpenAISpeech) error { return setNonBlank(&s.voice, v, "TTS voice") }
}

// WithTTSTimeout bounds one speech request (EXAMTUI_TTS_TIMEOUT).
func WithTTSTimeout(d time.Duration) OpenAITTSOption {
	return func(s *OpenAISpeech) error {
		if d <= 0 {
			return fmt.Errorf("%w: TTS timeout %v", ErrInvalidConfig, d)
		}
		s.timeout = d
		return nil
	}
}

// WithTTSLogger sets the logger.
func WithTTSLogger(l *slog.Logger) OpenAITTSOption {
	return func(s *OpenAISpeech) error { return setLogger(&s.log, l) }
}

// NewOpenAISpeech returns a synthesizer for baseURL (ending in /v1).
func NewOpenAISpeech(baseURL, apiKey string, httpClient *http.Client, opts ...OpenAITTSOption) (*OpenAISpeech, error) {
	client, err := newOpenAIClient(baseURL, apiKey, httpClient)
	if err != nil {
		return nil, err
	}
	s := &OpenAISpeech{client: client, model: string(openai.TTSModel1), voice: string(openai.VoiceAlloy),
		log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Synthesize requests WAV speech. Speed is sent as OpenAI's speed (0.25..4), so slow_down's
// lower multiplier slows the voice itself rather than stretching the audio.
func (s *OpenAISpeech) Synthesize(ctx context.Context, text string, opts SpeakOptions) (Clip, error) {
	return s.SynthesizeStream(ctx, text, opts, nil)
}

// SynthesizeStream requests WAV speech as Synthesize does and hands its samples to part as the
// response brings them (StreamWAV): the endpoint streams its answer, so a line plays from the
// first frame the voice has made, not once the whole sentence is there.
func (s *OpenAISpeech) SynthesizeStream(ctx context.Context, text string, opts SpeakOptions, part func(Clip)) (Clip, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Clip{Rate: SampleRate}, nil
	}
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	voice := s.voice
	if opts.Voice != "" && isOpenAIVoice(opts.Voice) {
		voice = strings.ToLower(opts.Voice)
	}
	resp, err := s.client.CreateSpeech(ctx, openai.CreateSpeechRequest{
		Model:          openai.SpeechModel(s.model),
		Input:          text,
		Voice:          openai.SpeechVoice(voice),
		ResponseFormat: openai.SpeechResponseFormatWav,
		Speed:          min(4, max(0.25, opts.speed())),
	})
	if err != nil {
		return Clip{}, fmt.Errorf("%w: %s: %w", ErrTTS, s.model, err)
	}
	defer resp.Close()
	clip, err := StreamWAV(resp, part)
	if err != nil {
		return Clip{}, fmt.Errorf("%w: %s answer: %w", ErrTTS, s.model, err)
	}
	_, _ = io.Copy(io.Discard, resp)
	s.log.Debug("speech synthesised", "model", s.model, "voice", voice, "duration", clip.Duration())
	return clip, nil
}

// BilledModel implements Billed: the model each speech request names.
func (s *OpenAISpeech) BilledModel() string { return s.model }
