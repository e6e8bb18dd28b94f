package openaitest

import (
	"fmt"
	"log/slog"
	"time"
)

// Option configures a Server.
type Option func(*config) error

type config struct {
	apiKey      string
	chatDefault func(*ChatRequest) Behaviour
	plainChat   func(*ChatRequest) Behaviour
	sttDefault  func(*TranscriptionRequest) Behaviour
	speechDelay time.Duration
	espeak      string
	voice       string
	models      []string
	noAudio     bool
	logger      *slog.Logger
}

func defaultConfig() config {
	return config{
		chatDefault: func(*ChatRequest) Behaviour {
			return Status(500, ErrorBody("server_error", "", "openaitest: no chat completion behaviour queued"))
		},
		sttDefault: func(*TranscriptionRequest) Behaviour {
			return Status(500, ErrorBody("server_error", "", "openaitest: no transcription behaviour queued"))
		},
		espeak: "espeak-ng",
		voice:  "en-us",
		models: []string{"gpt-4o-mini", "whisper-1", "tts-1"},
		logger: slog.New(slog.DiscardHandler),
	}
}

// WithAPIKey makes the server require "Authorization: Bearer key" (401 otherwise).
func WithAPIKey(key string) Option {
	return func(c *config) error {
		if key == "" {
			return fmt.Errorf("%w: empty API key", ErrInvalidOption)
		}
		c.apiKey = key
		return nil
	}
}

// WithDefault sets the chat behaviour used when the queue is empty. The default answers 500
// with a message saying nothing was queued, so an unexpected request is visible.
func WithDefault(f func(*ChatRequest) Behaviour) Option {
	return func(c *config) error {
		if f == nil {
			return fmt.Errorf("%w: nil chat default", ErrInvalidOption)
		}
		c.chatDefault = f
		return nil
	}
}

// WithPlainChat answers the chat requests that offer no tools (an examiner's summary call)
// with f, ahead of the queue: the queued behaviours stay for the requests with tools (the
// examiner's turns), so a test scripts the two apart.
func WithPlainChat(f func(*ChatRequest) Behaviour) Option {
	return func(c *config) error {
		if f == nil {
			return fmt.Errorf("%w: nil plain chat behaviour", ErrInvalidOption)
		}
		c.plainChat = f
		return nil
	}
}

// WithTranscriber sets the transcription behaviour used when the queue is empty.
func WithTranscriber(f func(*TranscriptionRequest) Behaviour) Option {
	return func(c *config) error {
		if f == nil {
			return fmt.Errorf("%w: nil transcriber", ErrInvalidOption)
		}
		c.sttDefault = f
		return nil
	}
}

// WithEspeak sets the espeak-ng binary (default "espeak-ng" on PATH).
func WithEspeak(path string) Option {
	return func(c *config) error {
		if path == "" {
			return fmt.Errorf("%w: empty espeak-ng path", ErrInvalidOption)
		}
		c.espeak = path
		return nil
	}
}

// WithVoice sets the espeak-ng voice for every OpenAI voice name (default "en-us").
func WithVoice(voice string) Option {
	return func(c *config) error {
		if voice == "" {
			return fmt.Errorf("%w: empty voice", ErrInvalidOption)
		}
		c.voice = voice
		return nil
	}
}

// WithModels sets what GET /v1/models lists.
func WithModels(models ...string) Option {
	return func(c *config) error {
		c.models = append([]string(nil), models...)
		return nil
	}
}

// WithSpeechDelay makes the speech answered when the queue is empty wait d before its first
// byte, on top of the synthesis (a provider's own latency).
func WithSpeechDelay(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("%w: speech delay %v", ErrInvalidOption, d)
		}
		c.speechDelay = d
		return nil
	}
}

// WithoutAudio serves chat and models only: /v1/audio/… answers 404 with a plain-text body,
// as a chat-only server does (Ollama's, llama.cpp's and vLLM's OpenAI-compatible servers
// serving a language model have no speech endpoints).
func WithoutAudio() Option {
	return func(c *config) error { c.noAudio = true; return nil }
}

// WithLogger logs each request at debug level.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidOption)
		}
		c.logger = l
		return nil
	}
}
