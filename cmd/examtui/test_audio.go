package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/endpoint"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
)

// testAudioOptions is `examtui test --audio`: scripted turns are spoken with espeak-ng and go
// through the real voice path (VAD, endpointing, STT) instead of being typed.
type testAudioOptions struct {
	enabled  bool
	stt      string
	noiseDB  float64
	minDelay time.Duration
	maxDelay time.Duration
	flags    *pflag.FlagSet
}

// defaultNoiseFloorDB is the room noise laid under scripted speech: a quiet office.
const defaultNoiseFloorDB = -50

func (a *testAudioOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	a.flags = f
	def := audio.DefaultEndpointConfig()
	f.BoolVar(&a.enabled, "audio", false, "speak each scripted turn (espeak-ng) through VAD, endpointing and STT; the report shows what was heard")
	f.StringVar(&a.stt, "audio-stt", app.SpeechAuto, "with --audio: recogniser: auto (openai when the stt stage has an endpoint: EXAMTUI_STT_* or OPENAI_*, else sphinx), openai, sphinx (pocketsphinx on a grammar of the script's turns, offline)")
	f.Float64Var(&a.noiseDB, "noise-floor", defaultNoiseFloorDB, "with --audio: white noise under the speech, in dBFS (0: none)")
	f.DurationVar(&a.minDelay, "min-endpointing-delay", def.MinEndpointingDelay, "with --audio: silence that ends a spoken turn (when not given: config audio.minEndpointingDelay)")
	f.DurationVar(&a.maxDelay, "max-endpointing-delay", def.MaxEndpointingDelay, "with --audio: longest wait while a turn looks unfinished (when not given: config audio.maxEndpointingDelay)")
}

// apply changes the runner's options for spoken turns; cleanup releases what it started.
func (a testAudioOptions) apply(ctx context.Context, opts *headless.Options, log *slog.Logger) (cleanup func(), err error) {
	if !a.enabled {
		return func() {}, nil
	}
	ep, err := app.EndpointConfig(configDelays(a.flags, a.minDelay, a.maxDelay))
	if err != nil {
		return nil, err
	}
	if a.noiseDB > 0 || a.noiseDB < -100 {
		return nil, fmt.Errorf("--noise-floor %.1f: want -100..0 dBFS", a.noiseDB)
	}
	synth, err := audio.NewEspeak(audio.WithEspeakLogger(log))
	if err != nil {
		return nil, err
	}
	sp := &scriptedSpeech{synth: synth, endpoint: ep, noiseDB: a.noiseDB, log: log, sphinx: map[*headless.Script]*audio.Sphinx{}}
	switch a.stt {
	case "", app.SpeechAuto:
		ep, err := app.StageEndpoint(endpoint.StageSTT)
		if err != nil {
			return nil, fmt.Errorf("--audio-stt: %w", err)
		}
		if !ep.Configured {
			break
		}
		fallthrough
	case app.SpeechOpenAI:
		rec, _, err := app.NewRecognizer(app.SpeechOpenAI, "", "", log)
		if err != nil {
			return nil, fmt.Errorf("--audio-stt openai: %w", err)
		}
		sp.openai = rec
	case app.SpeechSphinx:
	default:
		return nil, fmt.Errorf("--audio-stt %q: want auto, openai or sphinx", a.stt)
	}
	opts.Speak = sp.speak
	return sp.close, nil
}

// scriptedSpeech speaks scripted turns and recognises them: with the OpenAI-compatible
// recogniser when one is configured, else with pocketsphinx on a grammar of the script's own
// turns (exact on those phrases, forced onto the nearest one otherwise).
type scriptedSpeech struct {
	synth    audio.Synthesizer
	endpoint audio.EndpointConfig
	noiseDB  float64
	log      *slog.Logger
	openai   audio.Recognizer

	mu     sync.Mutex
	sphinx map[*headless.Script]*audio.Sphinx
}

func (sp *scriptedSpeech) recognizer(s *headless.Script) (audio.Recognizer, error) {
	if sp.openai != nil {
		return sp.openai, nil
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if r, ok := sp.sphinx[s]; ok {
		return r, nil
	}
	r, err := audio.NewSphinx(s.Said())
	if err != nil {
		return nil, err
	}
	if len(r.Generated) > 0 {
		sp.log.Info("test --audio: pronunciations from espeak-ng", "words", r.Generated)
	}
	sp.sphinx[s] = r
	return r, nil
}

// speak is headless.Options.Speak.
func (sp *scriptedSpeech) speak(ctx context.Context, s *headless.Script, say string) (runtime.Turn, error) {
	rec, err := sp.recognizer(s)
	if err != nil {
		return runtime.Turn{}, err
	}
	h := fnv.New64a()
	h.Write([]byte(say))
	tr, timing, err := audio.SpeakAndRecognize(ctx, say, rec, audio.ScriptedConfig{
		Synth: sp.synth, Endpoint: sp.endpoint, NoiseDB: sp.noiseDB, NoiseSeed: h.Sum64(),
	})
	if err != nil {
		return runtime.Turn{}, fmt.Errorf("spoken turn %q: %w", say, err)
	}
	conf := 1.0
	if tr.HasConfidence {
		conf = min(max(tr.Confidence, 0), 1)
	}
	sp.log.Info("test --audio: heard", "said", say, "heard", tr.Text, "confidence", conf,
		"utterances", timing.Utterances, "endpointingMs", timing.EndpointingMs, "sttMs", timing.STTMs)
	return runtime.Turn{Text: tr.Text, Confidence: conf, Duration: timing.Speech, Source: runtime.SourceMic,
		Latency: runtime.Latency{EndpointingMs: timing.EndpointingMs, STTMs: timing.STTMs}}, nil
}

func (sp *scriptedSpeech) close() {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for s, r := range sp.sphinx {
		if err := r.Close(); err != nil {
			sp.log.Warn("test --audio: closing pocketsphinx", "err", err)
		}
		delete(sp.sphinx, s)
	}
}
