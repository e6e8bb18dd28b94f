// Package endpoint resolves the OpenAI-compatible endpoint of each stage (the examiner LLM,
// speech recognition, speech synthesis) from the environment, where the config file's values
// are too (config.File.Env). Every path that calls a model server (run, run --headless, test,
// the worker, rooms, doctor) asks Resolve, so a stage is configured the same way everywhere.
package endpoint

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime/llm"
)

// Shared variables every stage falls back to: today's single-endpoint configuration.
const (
	EnvSharedBaseURL = "OPENAI_BASE_URL"
	EnvSharedAPIKey  = "OPENAI_API_KEY"
	// EnvSharedModel is the LLM's model when EXAMTUI_LLM_MODEL is unset (the older name).
	EnvSharedModel = "EXAMTUI_MODEL"
)

// Endpoint is one stage's server. The key is never printed: String and LogValue leave it out.
type Endpoint struct {
	Stage   Stage
	BaseURL string // OpenAI's when configured with a key only
	APIKey  string
	Model   string        // empty: the stage's default (the LLM's is llm.DefaultModel)
	Timeout time.Duration // 0: the stage's default
	// Configured is false when neither a base URL nor a key applies to the stage: the LLM is
	// then the offline examiner, STT typed answers, TTS espeak-ng.
	Configured bool
	// Shared reports that the base URL (or, without one, the key) came from the shared OPENAI_*
	// settings rather than the stage's own.
	Shared bool
}

// Resolve is the stage's endpoint from the environment.
func Resolve(s Stage) (Endpoint, error) { return ResolveLookup(s, os.LookupEnv) }

// ResolveLookup is Resolve over any variable lookup.
//
// The fallback rule: each setting is the stage's own variable, else the shared one. The key
// is the exception: a stage with its own base URL uses only its own key, so the shared key
// (often a hosted provider's) is never sent to a different server.
func ResolveLookup(s Stage, lookup func(string) (string, bool)) (Endpoint, error) {
	if s != StageLLM && s != StageSTT && s != StageTTS && s != StageMark {
		return Endpoint{}, fmt.Errorf("%w: %v", ErrUnknownStage, s)
	}
	get := func(k string) string {
		v, _ := lookup(k)
		return strings.TrimSpace(v)
	}
	e := Endpoint{Stage: s, BaseURL: get(s.EnvBaseURL()), APIKey: get(s.EnvAPIKey()), Model: get(s.EnvModel())}
	switch {
	case e.BaseURL != "":
	case e.APIKey != "":
		e.BaseURL = get(EnvSharedBaseURL)
		e.Shared = e.BaseURL != ""
	default:
		e.BaseURL, e.APIKey = get(EnvSharedBaseURL), get(EnvSharedAPIKey)
		e.Shared = e.BaseURL != "" || e.APIKey != ""
	}
	// The panel marks with the examiner's model unless told otherwise: both are chat models.
	if (s == StageLLM || s == StageMark) && e.Model == "" {
		if e.Model = get(EnvSharedModel); e.Model == "" {
			e.Model = llm.DefaultModel
		}
	}
	if e.BaseURL == "" && e.APIKey == "" {
		return e, nil
	}
	e.Configured = true
	if e.BaseURL == "" {
		e.BaseURL = llm.DefaultBaseURL
	}
	src := s.EnvBaseURL()
	if e.Shared {
		src = EnvSharedBaseURL
	}
	if p, err := url.Parse(e.BaseURL); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return e, fmt.Errorf("%w: %s: want http(s)://host[/path], e.g. http://127.0.0.1:8080/v1", ErrInvalid, src)
	}
	if v := get(s.EnvTimeout()); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return e, fmt.Errorf("%w: %s=%q: want a positive duration such as 10s", ErrInvalid, s.EnvTimeout(), v)
		}
		e.Timeout = d
	}
	return e, nil
}

// String describes the endpoint without its key.
func (e Endpoint) String() string {
	if !e.Configured {
		return e.Stage.String() + ": not configured"
	}
	key := "none"
	if e.APIKey != "" {
		key = "set"
	}
	model := e.Model
	if model == "" {
		model = "default"
	}
	return fmt.Sprintf("%s: base=%s model=%s key=%s", e.Stage, redactURL(e.BaseURL), model, key)
}

// LogValue keeps the key out of structured logs.
func (e Endpoint) LogValue() slog.Value { return slog.StringValue(e.String()) }

// redactURL hides a password in a base URL's user info.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return p.Redacted()
}
