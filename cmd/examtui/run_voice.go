package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/app"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/tui"
)

// Speech provider choices of the local voice path.
const (
	speechAuto   = "auto"
	speechOpenAI = "openai"
	speechEspeak = "espeak"
	speechSphinx = "sphinx"
	speechNone   = "none"
)

// voiceOptions are the local voice flags of `examtui run`; each overrides its field of the
// config file's audio section.
type voiceOptions struct {
	mic          bool
	inputDevice  string
	outputDevice string
	bargeIn      bool
	stt, tts     string
	sttModel     string
	voice        string
	minDelay     time.Duration
	maxDelay     time.Duration
	noRecord     bool
	flags        *pflag.FlagSet
}

func (v *voiceOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	v.flags = f
	def := audio.DefaultEndpointConfig()
	f.BoolVar(&v.mic, "mic", false, "answer by speaking into the microphone (PortAudio); the examiner speaks through the speaker")
	f.StringVar(&v.inputDevice, "input-device", "", "with --mic: microphone index or name (see examtui devices; default: the system's)")
	f.StringVar(&v.outputDevice, "output-device", "", "with --mic: speaker index or name (see examtui devices; default: the system's)")
	f.BoolVar(&v.bargeIn, "barge-in", false, "with --mic: let the candidate interrupt the examiner (use headphones); default is half duplex")
	// --stt, --tts and --voice serve --room as well (run_room.go reads them through merged).
	f.StringVar(&v.stt, "stt", "", "with --mic or --room: speech recognition: auto (OpenAI-compatible when OPENAI_BASE_URL or OPENAI_API_KEY is set, else none), openai, none: typed answers (default: config audio.stt, else auto)")
	f.StringVar(&v.tts, "tts", "", "with --mic or --room: the examiner's voice: auto (openai when OPENAI_* is set, else espeak), espeak (espeak-ng, offline), openai, none (default: config audio.tts, else auto)")
	f.StringVar(&v.voice, "voice", "", "with --mic or --room: the examiner's voice when the persona names none: espeak-ng (en-us, en-gb...) or OpenAI (alloy...)")
	f.StringVar(&v.sttModel, "stt-model", "", "transcription model of the OpenAI-compatible endpoint (default: config openai.sttModel or whisper-1)")
	f.DurationVar(&v.minDelay, "min-endpointing-delay", def.MinEndpointingDelay, "with --mic or --room: silence that ends a spoken turn (when not given: config audio.minEndpointingDelay)")
	f.DurationVar(&v.maxDelay, "max-endpointing-delay", def.MaxEndpointingDelay, "with --mic or --room: longest wait while a spoken turn looks unfinished (when not given: config audio.maxEndpointingDelay)")
	f.BoolVar(&v.noRecord, "no-record", false, "with --mic: do not record the session audio")
}

// merged applies the config file's audio section to every flag not given.
func (v voiceOptions) merged() voiceOptions {
	c := globals.config.Audio
	given := func(name string) bool { return v.flags != nil && v.flags.Changed(name) }
	str := func(name string, dst *string, val string) {
		if !given(name) && strings.TrimSpace(val) != "" {
			*dst = strings.TrimSpace(val)
		}
	}
	str("input-device", &v.inputDevice, c.InputDevice)
	str("output-device", &v.outputDevice, c.OutputDevice)
	str("stt", &v.stt, c.STT)
	str("tts", &v.tts, c.TTS)
	str("stt-model", &v.sttModel, globals.config.OpenAI.STTModel)
	str("voice", &v.voice, c.Voice)
	if !given("barge-in") && c.BargeIn {
		v.bargeIn = true
	}
	if !given("min-endpointing-delay") && c.MinEndpointingDelay > 0 {
		v.minDelay = seconds(c.MinEndpointingDelay)
	}
	if !given("max-endpointing-delay") && c.MaxEndpointingDelay > 0 {
		v.maxDelay = seconds(c.MaxEndpointingDelay)
	}
	return v
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// endpointConfig is the default endpointing with the two LiveKit delays set; a short minimum
// delay shortens the VAD's hangover with it (the endpoint is counted from the last speech).
func endpointConfig(minDelay, maxDelay time.Duration) (audio.EndpointConfig, error) {
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

// openAIEndpoint returns the OpenAI-compatible endpoint from OPENAI_BASE_URL / OPENAI_API_KEY
// (or the config file), and whether one is configured.
func openAIEndpoint() (baseURL, key string, ok bool) {
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

// newRecognizer builds the live speech recogniser. A nil recogniser with a reason means typed
// answers: pocketsphinx is accurate only on a fixed phrase grammar (examtui test --audio), so
// live speech needs an OpenAI-compatible transcription endpoint.
func newRecognizer(kind, model, language string, log *slog.Logger) (audio.Recognizer, string, error) {
	base, key, configured := openAIEndpoint()
	switch kind {
	case "", speechAuto:
		if !configured {
			return nil, "no STT: typing", nil
		}
	case speechOpenAI:
		if !configured {
			return nil, "", errors.New("--stt openai: set OPENAI_BASE_URL (an OpenAI-compatible server with /v1/audio/transcriptions) and/or OPENAI_API_KEY")
		}
	case speechNone:
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

// newSynthesizer builds the examiner's voice (nil for --tts none).
func newSynthesizer(kind, voice string, log *slog.Logger) (audio.Synthesizer, error) {
	base, key, configured := openAIEndpoint()
	if kind == "" || kind == speechAuto {
		kind = speechEspeak
		if configured {
			kind = speechOpenAI
		}
	}
	switch kind {
	case speechEspeak:
		return audio.NewEspeak(audio.WithEspeakLogger(log))
	case speechOpenAI:
		if !configured {
			return nil, errors.New("--tts openai: set OPENAI_BASE_URL (an OpenAI-compatible server with /v1/audio/speech) and/or OPENAI_API_KEY")
		}
		opts := []audio.OpenAITTSOption{audio.WithTTSLogger(log)}
		if m := strings.TrimSpace(globals.config.OpenAI.TTSModel); m != "" {
			opts = append(opts, audio.WithTTSModel(m))
		}
		if voice != "" {
			opts = append(opts, audio.WithTTSVoice(voice))
		}
		return audio.NewOpenAISpeech(base, key, nil, opts...)
	case speechNone:
		return nil, nil
	}
	return nil, fmt.Errorf("--tts %q: want auto, espeak, openai or none", kind)
}

// localVoice is the running microphone and speaker path of a console exam.
type localVoice interface {
	TUIOptions() []tui.Option
	Close() error
}

// startVoice starts the local voice path when --mic was given; nil otherwise. A missing
// device or recogniser is not fatal: the console opens with typed answers and says why in
// its status line (and the log); a device named but not found is an error.
func startVoice(ctx context.Context, x *app.Exam, v voiceOptions, dataDir string, log *slog.Logger) (localVoice, error) {
	if !v.mic {
		return nil, nil
	}
	v = v.merged()
	ep, err := endpointConfig(v.minDelay, v.maxDelay)
	if err != nil {
		return nil, err
	}
	rec, status, err := newRecognizer(v.stt, v.sttModel, x.Spec.Language, log)
	if err != nil {
		return nil, err
	}
	synth, err := newSynthesizer(v.tts, v.voice, log)
	if err != nil {
		return nil, err
	}
	var parts app.VoiceParts
	if rec != nil {
		capt, err := audio.OpenCapture(audio.WithInputDevice(v.inputDevice), audio.WithCaptureLogger(log))
		switch {
		case errors.Is(err, audio.ErrDeviceNotFound):
			return nil, fmt.Errorf("--input-device: %w", err)
		case err != nil:
			log.Warn("voice: no microphone; answers are typed", "err", err)
			fmt.Fprintf(os.Stderr, "examtui: --mic: %v\n", err)
			status = "no mic: typing"
		default:
			parts.Source, parts.Recognizer = capt, rec
		}
	}
	if synth != nil {
		player, err := audio.OpenPlayer(audio.WithOutputDevice(v.outputDevice), audio.WithPlayerLogger(log))
		switch {
		case errors.Is(err, audio.ErrDeviceNotFound):
			if parts.Source != nil {
				_ = parts.Source.Close()
			}
			return nil, fmt.Errorf("--output-device: %w", err)
		case err != nil:
			log.Warn("voice: no speaker; the examiner's lines are shown only", "err", err)
			fmt.Fprintf(os.Stderr, "examtui: --mic: %v\n", err)
			if status == "" {
				status = "no speaker"
			}
		default:
			parts.Synthesizer, parts.Sink = synth, player
		}
	}
	if parts.Source == nil && parts.Sink == nil {
		return newStatusOnly(status), nil
	}
	// The adaptive end of turn (the exam's policies.turnTaking, as in rooms): a complete answer
	// ends after the short delay, a pause after "…and" waits up to maxEndpointingDelay.
	ep = app.SpecTurnTaking(ep, x.Spec.Policies.TurnTaking, v.minDelay > 0, v.maxDelay > 0)
	opts := []app.VoiceOption{app.WithVoiceEndpointing(ep), app.WithVoiceBargeIn(v.bargeIn),
		app.WithVoiceLogger(log), app.WithVoiceStatus(status), app.WithVoiceDefault(v.voice),
		app.WithVoiceAdaptiveEndOfTurn(parts.Recognizer != nil)}
	if x.Store != nil && !v.noRecord {
		opts = append(opts, app.WithVoiceRecording(app.RecordingDir(dataDir, x.SessionID)))
	}
	return app.StartVoice(ctx, x, parts, opts...)
}

// statusOnly is the voice path when neither microphone nor speaker could be used: the meter
// only says why, and answers are typed.
type statusOnly struct {
	ch   chan tui.AudioLevelMsg
	once sync.Once
}

func newStatusOnly(status string) *statusOnly {
	s := &statusOnly{ch: make(chan tui.AudioLevelMsg, 1)}
	s.ch <- tui.AudioLevelMsg{State: status}
	return s
}

func (s *statusOnly) TUIOptions() []tui.Option { return []tui.Option{tui.WithAudioLevels(s.ch)} }

func (s *statusOnly) Close() error {
	s.once.Do(func() { close(s.ch) })
	return nil
}
