package app

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/endpoint"
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

// StageEndpoint is the stage's endpoint (endpoint.Resolve), for callers that only ask whether
// one is configured.
func StageEndpoint(s endpoint.Stage) (endpoint.Endpoint, error) { return endpoint.Resolve(s) }

// NewRecognizer builds the live speech recogniser on the stt stage's endpoint
// (EXAMTUI_STT_*, else OPENAI_*); model "" is the stage's model, else whisper-1. A nil
// recogniser with a reason means typed answers: pocketsphinx is accurate only on a fixed phrase
// grammar (examtui test --audio), so live speech needs an OpenAI-compatible transcription
// ErrSpeechLanguage: the recogniser cannot hear the exam's language (pocketsphinx is English
// only).
var ErrSpeechLanguage = errors.New("the recogniser does not serve the exam's language")

// endpoint.
func NewRecognizer(kind, model, language string, log *slog.Logger) (audio.Recognizer, string, error) {
	ep, err := endpoint.Resolve(endpoint.StageSTT)
	if err != nil {
		return nil, "", fmt.Errorf("--stt: %w", err)
	}
	switch kind {
	case "", SpeechAuto:
		if !ep.Configured {
			return nil, "no STT: typing", nil
		}
	case SpeechOpenAI:
		if !ep.Configured {
			return nil, "", errors.New("--stt openai: set EXAMTUI_STT_BASE_URL or OPENAI_BASE_URL (an OpenAI-compatible server with /v1/audio/transcriptions) and/or the key")
		}
	case SpeechNone:
		return nil, "STT off: typing", nil
	default:
		return nil, "", fmt.Errorf("--stt %q: want auto, openai or none (pocketsphinx only serves `examtui test --audio`)", kind)
	}
	opts := []audio.OpenAISTTOption{audio.WithSTTLogger(log)}
	if m := firstNonBlank(model, ep.Model); m != "" {
		opts = append(opts, audio.WithSTTModel(m))
	}
	if language != "" {
		opts = append(opts, audio.WithSTTLanguage(language))
	}
	if ep.Timeout > 0 {
		opts = append(opts, audio.WithSTTTimeout(ep.Timeout))
	}
	r, err := audio.NewOpenAIRecognizer(ep.BaseURL, ep.APIKey, ep.Client(), opts...)
	if err != nil {
		return nil, "", err
	}
	log.Info("stt endpoint", "endpoint", ep)
	return r, "", nil
}

// NewSynthesizer builds the examiner's voice (nil for --tts none) on the tts stage's endpoint
// (EXAMTUI_TTS_*, else OPENAI_*); model "" is the stage's model, else tts-1.
func NewSynthesizer(kind, voice, model string, log *slog.Logger) (audio.Synthesizer, error) {
	ep, err := endpoint.Resolve(endpoint.StageTTS)
	if err != nil {
		return nil, fmt.Errorf("--tts: %w", err)
	}
	if kind == "" || kind == SpeechAuto {
		kind = SpeechEspeak
		if ep.Configured {
			kind = SpeechOpenAI
		}
	}
	switch kind {
	case SpeechEspeak:
		return audio.NewEspeak(audio.WithEspeakLogger(log))
	case SpeechOpenAI:
		if !ep.Configured {
			return nil, errors.New("--tts openai: set EXAMTUI_TTS_BASE_URL or OPENAI_BASE_URL (an OpenAI-compatible server with /v1/audio/speech) and/or the key")
		}
		opts := []audio.OpenAITTSOption{audio.WithTTSLogger(log)}
		if m := firstNonBlank(model, ep.Model); m != "" {
			opts = append(opts, audio.WithTTSModel(m))
		}
		if voice != "" {
			opts = append(opts, audio.WithTTSVoice(voice))
		}
		if ep.Timeout > 0 {
			opts = append(opts, audio.WithTTSTimeout(ep.Timeout))
		}
		log.Info("tts endpoint", "endpoint", ep)
		return audio.NewOpenAISpeech(ep.BaseURL, ep.APIKey, ep.Client(), opts...)
	case SpeechNone:
		return nil, nil
	}
	return nil, fmt.Errorf("--tts %q: want auto, espeak, openai or none", kind)
}

func firstNonBlank(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
