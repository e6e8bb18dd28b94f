package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/atrest"
	"github.com/examtui/examtui/transport/voicepath"
	"github.com/examtui/examtui/tui"
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
	ttsModel     string
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
	f.StringVar(&v.stt, "stt", "", "with --mic or --room: speech recognition: auto (OpenAI-compatible when the stt stage has an endpoint: EXAMTUI_STT_* or OPENAI_*, else none), openai, none: typed answers (default: config audio.stt, else auto)")
	f.StringVar(&v.tts, "tts", "", "with --mic or --room: the examiner's voice: auto (openai when the tts stage has an endpoint: EXAMTUI_TTS_* or OPENAI_*, else espeak), espeak (espeak-ng, offline), openai, none (default: config audio.tts, else auto)")
	f.StringVar(&v.voice, "voice", "", "with --mic or --room: the examiner's voice when the persona names none: espeak-ng (en-us, en-gb...) or OpenAI (alloy...)")
	v.addModelFlags(cmd)
	f.DurationVar(&v.minDelay, "min-endpointing-delay", def.MinEndpointingDelay, "with --mic or --room: silence that ends a spoken turn (when not given: config audio.minEndpointingDelay)")
	f.DurationVar(&v.maxDelay, "max-endpointing-delay", def.MaxEndpointingDelay, "with --mic or --room: longest wait while a spoken turn looks unfinished (when not given: config audio.maxEndpointingDelay)")
	f.BoolVar(&v.noRecord, "no-record", false, "with --mic: do not record the session audio")
}

// addModelFlags adds the speech stages' model flags; empty means the stage's model
// (EXAMTUI_STT_MODEL / EXAMTUI_TTS_MODEL, the config file's stt.model / tts.model or
// openai.sttModel / openai.ttsModel), then whisper-1 and tts-1.
func (v *voiceOptions) addModelFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&v.sttModel, "stt-model", "", "transcription model of the stt endpoint (default $EXAMTUI_STT_MODEL, config stt.model or openai.sttModel, else whisper-1)")
	f.StringVar(&v.ttsModel, "tts-model", "", "speech model of the tts endpoint (default $EXAMTUI_TTS_MODEL, config tts.model or openai.ttsModel, else tts-1)")
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
	str("voice", &v.voice, c.Voice)
	if !given("barge-in") && c.BargeIn {
		v.bargeIn = true
	}
	v.minDelay, v.maxDelay = configDelays(v.flags, v.minDelay, v.maxDelay)
	return v
}

// configDelays is the endpointing delays of the --min-endpointing-delay and
// --max-endpointing-delay flags in flags, each replaced by the config file's audio delay when
// the flag was not given (run --mic, and test --audio).
func configDelays(flags *pflag.FlagSet, minDelay, maxDelay time.Duration) (time.Duration, time.Duration) {
	c := globals.config.Audio
	given := func(name string) bool { return flags != nil && flags.Changed(name) }
	if !given("min-endpointing-delay") && c.MinEndpointingDelay > 0 {
		minDelay = seconds(c.MinEndpointingDelay)
	}
	if !given("max-endpointing-delay") && c.MaxEndpointingDelay > 0 {
		maxDelay = seconds(c.MaxEndpointingDelay)
	}
	return minDelay, maxDelay
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// localVoice is the running microphone and speaker path of a console exam.
type localVoice interface {
	TUIOptions() []tui.Option
	Close() error
}

// startVoice starts the local voice path when --mic was given; nil otherwise. A missing
// device or recogniser is not fatal: the console opens with typed answers and says why (the
// returned sentence, which the console shows as its opening notice) and what to set; a device
// named but not found is an error.
func startVoice(ctx context.Context, x *app.Exam, v voiceOptions, dataDir string, log *slog.Logger) (localVoice, string, error) {
	if !v.mic {
		return nil, "", nil
	}
	v = v.merged()
	ep, err := app.EndpointConfig(v.minDelay, v.maxDelay)
	if err != nil {
		return nil, "", err
	}
	rec, status, err := app.NewRecognizer(v.stt, v.sttModel, x.Spec.Language, log)
	if err != nil {
		return nil, "", err
	}
	why := typedWhy(status, nil)
	synth, err := app.NewSynthesizer(v.tts, v.voice, v.ttsModel, log)
	if err != nil {
		return nil, "", err
	}
	var parts app.VoiceParts
	if rec != nil {
		capt, err := audio.OpenCapture(audio.WithInputDevice(v.inputDevice), audio.WithCaptureLogger(log))
		switch {
		case errors.Is(err, audio.ErrDeviceNotFound):
			return nil, "", fmt.Errorf("--input-device: %w", err)
		case err != nil:
			log.Warn("voice: no microphone; answers are typed", "err", err)
			status = "no mic: typing"
			why = typedWhy(status, err)
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
			return nil, "", fmt.Errorf("--output-device: %w", err)
		case err != nil:
			log.Warn("voice: no speaker; the examiner's lines are shown only", "err", err)
			if status == "" {
				status = "no speaker"
			}
			why = strings.TrimSpace(why + " " + typedWhy("no speaker", err))
		default:
			parts.Synthesizer, parts.Sink = synth, player
		}
	}
	if parts.Source == nil && parts.Sink == nil {
		return newStatusOnly(status), why, nil
	}
	// The adaptive end of turn (the exam's policies.turnTaking, as in rooms): a complete answer
	// ends after the short delay, a pause after "…and" waits up to maxEndpointingDelay.
	ep = voicepath.SpecTurnTaking(ep, x.Spec.Policies.TurnTaking, v.minDelay > 0, v.maxDelay > 0)
	opts := []app.VoiceOption{app.WithVoiceEndpointing(ep), app.WithVoiceBargeIn(v.bargeIn),
		app.WithVoiceLogger(log), app.WithVoiceStatus(status), app.WithVoiceDefault(v.voice),
		app.WithVoiceAdaptiveEndOfTurn(parts.Recognizer != nil)}
	if x.Store != nil && !v.noRecord {
		to, err := atrest.Recipients(globals.config.Records.Recipients)
		if err != nil {
			closeVoiceParts(parts)
			return nil, "", fmt.Errorf("records.recipients: %w", err)
		}
		opts = append(opts, app.WithVoiceRecording(app.RecordingDir(dataDir, x.SessionID)), app.WithVoiceEncryption(to))
	}
	vc, err := app.StartVoice(ctx, x, parts, opts...)
	return vc, why, err
}

// typedWhy says in a sentence why --mic fell back (status is the meter's word for it) and
// what to set, for the console to show when it opens: the log alone is not read.
func typedWhy(status string, err error) string {
	switch status {
	case "no STT: typing":
		return "Answers are typed: --mic found no speech recogniser. Set EXAMTUI_STT_BASE_URL (or OPENAI_BASE_URL) " +
			"to an OpenAI-compatible server with /v1/audio/transcriptions, or pass --stt openai (docs/voice.md)."
	case "STT off: typing":
		return "Answers are typed: --stt none switches speech recognition off."
	case "no mic: typing":
		return fmt.Sprintf("Answers are typed: no microphone could be opened (%v); examtui devices lists them, --input-device picks one.", err)
	case "no speaker":
		return fmt.Sprintf("The examiner's lines are shown, not spoken: no speaker could be opened (%v); examtui devices lists them, --output-device picks one.", err)
	}
	return ""
}

func closeVoiceParts(p app.VoiceParts) {
	if p.Source != nil {
		_ = p.Source.Close()
	}
	if p.Sink != nil {
		_ = p.Sink.Close()
	}
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
