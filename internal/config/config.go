// Package config reads examtui's optional config file. Secrets (API keys) may live here or in
// the environment; the environment wins, and flags win over both.
package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/goccy/go-yaml"

	"github.com/examtui/examtui/runtime/usage"
	"github.com/examtui/examtui/spec/lang"
)

// EnvConfigFile overrides the config file location.
const EnvConfigFile = "EXAMTUI_CONFIG"

// File is the config file's shape (YAML).
type File struct {
	OpenAI OpenAI `yaml:"openai"`
	// LLM, STT and TTS give a stage its own server; an empty field falls back to openai:
	// (docs/operations.md, "Examiners and providers").
	LLM     Stage   `yaml:"llm"`
	STT     Stage   `yaml:"stt"`
	TTS     Stage   `yaml:"tts"`
	LiveKit LiveKit `yaml:"livekit"`
	Audio   Audio   `yaml:"audio"`
	// DataDir overrides where sessions are stored.
	DataDir string `yaml:"dataDir"`
	// Store selects the session store: a data directory or a postgres:// URL (sets
	// EXAMTUI_STORE when the environment does not).
	Store string `yaml:"store"`
	// Monitor tunes the control room's alert thresholds (examtui monitor).
	Monitor Monitor `yaml:"monitor"`
	// Prices is the price table per model name, for the cost of each exam (sessions show and
	// list, the exports, the control room).
	Prices usage.Prices `yaml:"prices"`
	// Budget is what one exam may cost before the control room raises its cost alert.
	Budget Budget `yaml:"budget"`
	// Mark is the model panel's endpoint (marks propose --panel), with the stages' fallback.
	Mark Stage `yaml:"mark"`
	// Panel lists the panel's members; empty: three members on the mark stage's endpoint.
	Panel Panel `yaml:"panel"`
	// Serve is the candidate server (examtui serve) as the links point at it.
	Serve Serve `yaml:"serve"`
	// Languages lists language pack files (JSON, docs/languages.md), relative to the config
	// file: each adds a language or overrides lines and words of a shipped one.
	Languages []string `yaml:"languages"`

	// LTI makes examtui serve an LTI 1.3 tool for these platforms (docs/lms.md).
	LTI LTI `yaml:"lti"`
	// Records governs exam records: retention, the recording notice, encryption at rest.
	Records Records `yaml:"records"`

	packs *lang.Registry // the shipped packs with Languages laid over them (Load)
}

// LanguagePacks is the registry exams look their language up in: the shipped packs with the
// config file's added (the shipped ones alone for a config that names none).
func (f File) LanguagePacks() *lang.Registry {
	if f.packs == nil {
		return lang.Builtin()
	}
	return f.packs
}

// loadPacks reads the config file's language packs (paths relative to the config file at p).
func loadPacks(p string, files []string) (*lang.Registry, error) {
	var packs []*lang.Pack
	for i, name := range files {
		if !filepath.IsAbs(name) {
			name = filepath.Join(filepath.Dir(p), name)
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("languages[%d]: %w", i, err)
		}
		pack, err := lang.Parse(src)
		if err != nil {
			return nil, fmt.Errorf("languages[%d] %s: %w", i, name, err)
		}
		packs = append(packs, pack)
	}
	r, err := lang.Builtin().With(packs...)
	if err != nil {
		return nil, fmt.Errorf("languages: %w", err)
	}
	return r, nil
}

// Serve configures candidate join links (serve:).
type Serve struct {
	// URL is the candidate server's address in links (http(s)://HOST:PORT, or a reverse
	// proxy's public URL); sets EXAMTUI_SERVE_URL when the environment does not.
	URL string `yaml:"url"`
}

// Budget is the cost budget (budget:), in the price table's currency.
type Budget struct {
	CostPerExam float64 `yaml:"costPerExam"` // 0: no cost alert
}

// OpenAI configures the OpenAI-compatible endpoint for the examiner, STT and TTS.
type OpenAI struct {
	BaseURL  string `yaml:"baseURL"`
	APIKey   string `yaml:"apiKey"`
	Model    string `yaml:"model"`
	STTModel string `yaml:"sttModel"`
	TTSModel string `yaml:"ttsModel"`
	// FirstTokenTimeout and Timeout are Go durations ("5s"): the wait for the examiner's first
	// streamed token and for its whole turn. FailoverAfter is how many failed turns in a row
	// hand the exam to the offline examiner. Zero or empty: the defaults (5s, 30s, 3).
	FirstTokenTimeout string `yaml:"firstTokenTimeout"`
	Timeout           string `yaml:"timeout"`
	FailoverAfter     int    `yaml:"failoverAfter"`
}

// Stage is one stage's endpoint (the llm:, stt: and tts: sections). They set
// EXAMTUI_<STAGE>_BASE_URL, _API_KEY, _MODEL and _TIMEOUT where the environment does not.
type Stage struct {
	BaseURL string `yaml:"baseURL"`
	APIKey  string `yaml:"apiKey"`
	Model   string `yaml:"model"`
	Timeout string `yaml:"timeout"` // a Go duration ("10s"); for llm: the examiner's turn timeout
}

// LiveKit configures the LiveKit server.
type LiveKit struct {
	URL       string `yaml:"url"`
	APIKey    string `yaml:"apiKey"`
	APISecret string `yaml:"apiSecret"`
}

// Audio configures local voice. Flags of the same meaning override each field.
type Audio struct {
	InputDevice  string `yaml:"inputDevice"`  // index or (part of a) name; empty: the default device
	OutputDevice string `yaml:"outputDevice"` // index or (part of a) name; empty: the default device
	// MinEndpointingDelay is the silence in seconds that ends a turn (default 0.5);
	// MaxEndpointingDelay the longest wait while a turn looks unfinished (default 3.0).
	MinEndpointingDelay float64 `yaml:"minEndpointingDelay"`
	MaxEndpointingDelay float64 `yaml:"maxEndpointingDelay"`
	STT                 string  `yaml:"stt"` // auto | openai | none (test --audio also: sphinx); empty: auto
	TTS                 string  `yaml:"tts"` // auto | espeak | openai | none; empty: auto
	// Voice is the examiner's default voice: an espeak-ng voice ("en-gb") or an OpenAI one
	// ("alloy"); a persona's voice in the spec wins.
	Voice string `yaml:"voice"`
	// BargeIn lets the candidate interrupt the examiner (with headphones), as --barge-in does.
	BargeIn bool `yaml:"bargeIn"`
}

// Path returns the config file path: $EXAMTUI_CONFIG, else $XDG_CONFIG_HOME/examtui/config.yaml,
// else ~/.config/examtui/config.yaml.
func Path() string {
	if p := os.Getenv(EnvConfigFile); p != "" {
		return p
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "examtui", "config.yaml")
}

// Load reads the config file at Path. A missing file is an empty config; a malformed one is an
// error naming the file, line and column.
func Load() (File, error) {
	var f File
	p := Path()
	if p == "" {
		return f, nil
	}
	src, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("config: %w", err)
	}
	if err := yaml.UnmarshalWithOptions(src, &f, yaml.Strict()); err != nil {
		return f, fmt.Errorf("config %s: %s", p, yaml.FormatError(err, false, true))
	}
	if err := f.Prices.Validate(); err != nil {
		return f, fmt.Errorf("config %s: %w", p, err)
	}
	if _, err := f.Records.Retention.Ages(); err != nil {
		return f, fmt.Errorf("config %s: %w", p, err)
	}
	if c := f.Budget.CostPerExam; c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
		return f, fmt.Errorf("config %s: budget.costPerExam is %v, want a cost of 0 or more", p, c)
	}
	if len(f.Languages) > 0 {
		if f.packs, err = loadPacks(p, f.Languages); err != nil {
			return f, fmt.Errorf("config %s: %w", p, err)
		}
	}
	return f, nil
}

// Env sets each variable that is unset in the environment from the config file, so every
// package that reads the environment (OPENAI_*, LIVEKIT_*) sees config-file values too.
func (f File) Env() {
	set := func(k, v string) {
		if v == "" {
			return
		}
		if _, ok := os.LookupEnv(k); !ok {
			_ = os.Setenv(k, v)
		}
	}
	// The stages' own sections first: they are more specific than openai: for the same variable.
	for name, st := range map[string]Stage{"LLM": f.LLM, "STT": f.STT, "TTS": f.TTS, "MARK": f.Mark} {
		set("EXAMTUI_"+name+"_BASE_URL", st.BaseURL)
		set("EXAMTUI_"+name+"_API_KEY", st.APIKey)
		set("EXAMTUI_"+name+"_MODEL", st.Model)
		set("EXAMTUI_"+name+"_TIMEOUT", st.Timeout)
	}
	set("EXAMTUI_STT_MODEL", f.OpenAI.STTModel)
	set("EXAMTUI_TTS_MODEL", f.OpenAI.TTSModel)
	set("OPENAI_BASE_URL", f.OpenAI.BaseURL)
	set("OPENAI_API_KEY", f.OpenAI.APIKey)
	set("EXAMTUI_MODEL", f.OpenAI.Model)
	set("EXAMTUI_LLM_FIRST_TOKEN_TIMEOUT", f.OpenAI.FirstTokenTimeout)
	set("EXAMTUI_LLM_TIMEOUT", f.OpenAI.Timeout)
	if f.OpenAI.FailoverAfter != 0 {
		set("EXAMTUI_LLM_FAILOVER_AFTER", strconv.Itoa(f.OpenAI.FailoverAfter))
	}
	set("LIVEKIT_URL", f.LiveKit.URL)
	set("LIVEKIT_API_KEY", f.LiveKit.APIKey)
	set("LIVEKIT_API_SECRET", f.LiveKit.APISecret)
	set("EXAMTUI_DATA_DIR", f.DataDir)
	set("EXAMTUI_STORE", f.Store)
	set("EXAMTUI_SERVE_URL", f.Serve.URL)
}
