package app

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime/llm"
)

// Speech provider choices (--stt, --tts) of the local voice path, rooms and workers.
const (
	SpeechAuto   = "auto"
	SpeechOpenAI = "openai"
	SpeechEspeak = "espeak"
	SpeechSphinx = "sphinx"
	SpeechNone   = "none"
)

// EndpointConfig is the default endpointing with the two LiveKit delays set; a short minimum
// delay shortens the VAD's hangover with it (the endpoint is counted from the last speech).
func EndpointConfig(minDelay, maxDelay time.Duration) (audio.EndpointConfig, error) {
	cfg := audio.DefaultEndpointConfig()
	if minDelay > 0 {
		cfg.MinEndpointingDelay = minDelay
	}
	if maxDelay > 0 {
		cfg.MaxEndpointingDelay = maxDelay
	}
	if cfg.MinEndpointingDelay > audio.FrameDuration && cfg.VAD.Hangover >= cfg.MinEndpointingDelay {
		cfg.VAD.Hangover = cfg.MinEndpointingDelay - audio.FrameDuration
	}
	if _, err := audio.NewEndpointer(cfg); err != nil {
		return audio.EndpointConfig{}, fmt.Errorf("endpointing: %w", err)
	}
	return cfg, nil
}

// OpenAIEndpoint returns the OpenAI-compatible endpoint from OPENAI_BASE_URL / OPENAI_API_KEY
// (or the config file), and whether one is configured.
func OpenAIEndpoint() (baseURL, key string, ok bool) {
	c, err := llm.ConfigFromEnv()
	if errors.Is(err, llm.ErrNotConfigured) {
		return "", "", false
	}
	base := c.BaseURL
	if base == "" {
		base = llm.DefaultBaseURL
	}
	return base, c.APIKey, true
}

// NewRecognizer builds the live speech recogniser. A nil recogniser with a reason means typed
// answers: pocketsphinx is accurate only on a fixed phrase grammar (examtui test --audio), so
// live speech needs an OpenAI-compatible transcription endpoint.
func NewRecognizer(kind, model, language string, log *slog.Logger) (audio.Recognizer, string, error) {
	base, key, configured := OpenAIEndpoint()
	switch kind {
	case "", SpeechAuto:
		if !configured {
			return nil, "no STT: typing", nil
		}
	case SpeechOpenAI:
		if !configured {
			return nil, "", errors.New("--stt openai: set OPENAI_BASE_URL (an OpenAI-compatible server with /v1/audio/transcriptions) and/or OPENAI_API_KEY")
		}
	case SpeechNone:
		return nil, "STT off: typing", nil
	default:
		return nil, "", fmt.Errorf("--stt %q: want auto, openai or none (pocketsphinx only serves `examtui test --audio`)", kind)
	}
	opts := []audio.OpenAISTTOption{audio.WithSTTLogger(log)}
	if model != "" {
		opts = append(opts, audio.WithSTTModel(model))
	}
	if language != "" {
		opts = append(opts, audio.WithSTTLanguage(language))
	}
	r, err := audio.NewOpenAIRecognizer(base, key, nil, opts...)
	if err != nil {
		return nil, "", err
	}
	return r, "", nil
}

// NewSynthesizer builds the examiner's voice (nil for --tts none); model is the OpenAI TTS
// model (empty: the default).
func NewSynthesizer(kind, voice, model string, log *slog.Logger) (audio.Synthesizer, error) {
	base, key, configured := OpenAIEndpoint()
	if kind == "" || kind == SpeechAuto {
		kind = SpeechEspeak
		if configured {
			kind = SpeechOpenAI
		}
	}
	switch kind {
	case SpeechEspeak:
		return audio.NewEspeak(audio.WithEspeakLogger(log))
	case SpeechOpenAI:
		if !configured {
			return nil, errors.New("--tts openai: set OPENAI_BASE_URL (an OpenAI-compatible server with /v1/audio/speech) and/or OPENAI_API_KEY")
		}
		opts := []audio.OpenAITTSOption{audio.WithTTSLogger(log)}
		if m := strings.TrimSpace(model); m != "" {
			opts = append(opts, audio.WithTTSModel(m))
		}
		if voice != "" {
			opts = append(opts, audio.WithTTSVoice(voice))
		}
		return audio.NewOpenAISpeech(base, key, nil, opts...)
	case SpeechNone:
		return nil, nil
	}
	return nil, fmt.Errorf("--tts %q: want auto, espeak, openai or none", kind)
}
