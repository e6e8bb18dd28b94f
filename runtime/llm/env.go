package llm

import (
	"log/slog"
	"os"
	"strings"
)

// Environment variables ConfigFromEnv reads.
const (
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvModel   = "EXAMTUI_MODEL"
)

// Config is the endpoint configuration from the environment.
type Config struct {
	BaseURL string // empty: DefaultBaseURL
	APIKey  string
	Model   string
}

// ConfigFromEnv reads OPENAI_BASE_URL, OPENAI_API_KEY and EXAMTUI_MODEL. With neither an endpoint
// nor a key it returns ErrNotConfigured, the cue to fall back to the offline examiner.
func ConfigFromEnv() (Config, error) { return ConfigFromLookup(os.LookupEnv) }

// ConfigFromLookup is ConfigFromEnv over any variable lookup.
func ConfigFromLookup(lookup func(string) (string, bool)) (Config, error) {
	get := func(k string) string {
		v, _ := lookup(k)
		return strings.TrimSpace(v)
	}
	c := Config{BaseURL: get(EnvBaseURL), APIKey: get(EnvAPIKey), Model: get(EnvModel)}
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.BaseURL == "" && c.APIKey == "" {
		return c, ErrNotConfigured
	}
	return c, nil
}

// Options turns the configuration into examiner options.
func (c Config) Options() []Option {
	var opts []Option
	if c.BaseURL != "" {
		opts = append(opts, WithBaseURL(c.BaseURL))
	}
	if c.APIKey != "" {
		opts = append(opts, WithAPIKey(c.APIKey))
	}
	if c.Model != "" {
		opts = append(opts, WithModel(c.Model))
	}
	return opts
}

// String describes the configuration without the key.
func (c Config) String() string {
	base := c.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	key := "none"
	if c.APIKey != "" {
		key = "set"
	}
	return "model=" + c.Model + " base=" + base + " key=" + key
}

// LogValue keeps the key out of structured logs.
func (c Config) LogValue() slog.Value {
	return slog.StringValue(c.String())
}

// FromEnv builds an examiner from the environment; extra options apply after it.
func FromEnv(opts ...Option) (*Examiner, error) {
	c, err := ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	return New(append(c.Options(), opts...)...)
}
