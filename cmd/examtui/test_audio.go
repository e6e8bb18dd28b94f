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
	"github.com/examtui/examtui/spec/lang"
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

// refuse refuses a script --audio cannot hear before it runs: pocketsphinx (the recogniser
// without an OpenAI-compatible endpoint) recognises English only.
func (a testAudioOptions) refuse(s *headless.Script) error {
	if !a.enabled {
		return nil
	}
	switch a.stt {
	case app.SpeechSphinx:
	case "", app.SpeechAuto:
		if ep, err := app.StageEndpoint(endpoint.StageSTT); err != nil || ep.Configured {
			return nil // the openai recogniser (or an error apply reports)
		}
	default:
		return nil
	}
	exam, err := s.CompileSpec()
	if err != nil {
		return nil // reported by the run
	}
	if p, err := languagePacks().Lookup(exam.Language); err == nil && lang.Base(p.Language) != "en" {
		return fmt.Errorf("%w: pocketsphinx recognises English only, and this exam is in %s (%s): "+
			"use an OpenAI-compatible recogniser (--audio-stt openai, with EXAMTUI_STT_BASE_URL or OPENAI_BASE_URL)",
			app.ErrSpeechLanguage, p.Name, p.Language)
	}
	return nil
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
	sp := &scriptedSpeech{synth: synth, endpoint: ep, noiseDB: a.noiseDB, log: log, sphinx: map[*headless.Script]*audio.Sphinx{},
		openai: map[string]audio.Recognizer{}, langs: map[*headless.Script]*lang.Pack{}}
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
		// Checked now; each exam's language gets its own recogniser (the request carries it).
		if _, _, err := app.NewRecognizer(app.SpeechOpenAI, "", "", log); err != nil {
			return nil, fmt.Errorf("--audio-stt openai: %w", err)
		}
		sp.useOpenAI = true
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
	synth     audio.Synthesizer
	endpoint  audio.EndpointConfig
	noiseDB   float64
	log       *slog.Logger
	useOpenAI bool

	mu     sync.Mutex
	sphinx map[*headless.Script]*audio.Sphinx
	openai map[string]audio.Recognizer     // per exam language
	langs  map[*headless.Script]*lang.Pack // each script's exam language
}

// language is the language pack of the script's exam.
func (sp *scriptedSpeech) language(s *headless.Script) (*lang.Pack, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if p, ok := sp.langs[s]; ok {
		return p, nil
	}
	exam, err := s.CompileSpec()
	if err != nil {
		return nil, err
	}
	p, err := languagePacks().Lookup(exam.Language)
	if err != nil {
		return nil, err
	}
	sp.langs[s] = p
	return p, nil
}

func (sp *scriptedSpeech) recognizer(s *headless.Script, p *lang.Pack) (audio.Recognizer, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.useOpenAI {
		if r, ok := sp.openai[p.Language]; ok {
			return r, nil
		}
		r, _, err := app.NewRecognizer(app.SpeechOpenAI, "", p.Language, sp.log)
		if err != nil {
			return nil, err
		}
		sp.openai[p.Language] = r
		return r, nil
	}
	if lang.Base(p.Language) != "en" {
		return nil, fmt.Errorf("%w: pocketsphinx recognises English only, and this exam is in %s (%s): "+
			"use an OpenAI-compatible recogniser (--audio-stt openai, with EXAMTUI_STT_BASE_URL or OPENAI_BASE_URL)",
			app.ErrSpeechLanguage, p.Name, p.Language)
	}
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
	p, err := sp.language(s)
	if err != nil {
		return runtime.Turn{}, err
	}
	rec, err := sp.recognizer(s, p)
	if err != nil {
		return runtime.Turn{}, err
	}
	h := fnv.New64a()
	h.Write([]byte(say))
	tr, timing, err := audio.SpeakAndRecognize(ctx, say, rec, audio.ScriptedConfig{
		Synth: sp.synth, Endpoint: sp.endpoint, NoiseDB: sp.noiseDB, NoiseSeed: h.Sum64(),
		Speak: audio.SpeakOptions{Language: p.Language, Voice: p.Voice}, // the candidate speaks the exam's language
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
