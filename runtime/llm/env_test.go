package llm_test

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime/llm"
)

func TestConfigFromLookup(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    llm.Config
		wantErr error
	}{
		{"nothing set", map[string]string{}, llm.Config{Model: llm.DefaultModel}, llm.ErrNotConfigured},
		{"only a model", map[string]string{llm.EnvModel: "gpt-4o"}, llm.Config{Model: "gpt-4o"}, llm.ErrNotConfigured},
		{"blank values", map[string]string{llm.EnvAPIKey: "  ", llm.EnvBaseURL: ""}, llm.Config{Model: llm.DefaultModel}, llm.ErrNotConfigured},
		{"key only", map[string]string{llm.EnvAPIKey: "sk-x"}, llm.Config{APIKey: "sk-x", Model: llm.DefaultModel}, nil},
		{"local server", map[string]string{llm.EnvBaseURL: "http://127.0.0.1:8080/v1", llm.EnvModel: "qwen2.5"}, llm.Config{BaseURL: "http://127.0.0.1:8080/v1", Model: "qwen2.5"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llm.ConfigFromLookup(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("config = %+v, want %+v", got, tt.want)
			}
			if strings.Contains(got.String(), "sk-x") {
				t.Errorf("String shows the key: %s", got)
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(llm.EnvBaseURL, "")
	t.Setenv(llm.EnvAPIKey, "")
	if _, err := llm.FromEnv(); !errors.Is(err, llm.ErrNotConfigured) {
		t.Errorf("unset: err = %v", err)
	}
	t.Setenv(llm.EnvBaseURL, "http://127.0.0.1:1/v1")
	t.Setenv(llm.EnvModel, "llama3.1")
	e, err := llm.FromEnv(llm.WithStreaming(false))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Name() != "llama3.1" || e.Streaming() {
		t.Errorf("name %q streaming %v", e.Name(), e.Streaming())
	}
	var buf strings.Builder
	slog.New(slog.NewTextHandler(&buf, nil)).Info("cfg", "llm", llm.Config{APIKey: "sk-secret", Model: "m"})
	if strings.Contains(buf.String(), "sk-secret") || !strings.Contains(buf.String(), "key=set") {
		t.Errorf("logged config: %s", buf.String())
	}
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		opts []llm.Option
		want error
	}{
		{"nothing configured", nil, llm.ErrNotConfigured},
		{"model only", []llm.Option{llm.WithModel("gpt-4o")}, llm.ErrNotConfigured},
		{"bad scheme", []llm.Option{llm.WithBaseURL("ftp://x/v1")}, llm.ErrInvalidOption},
		{"no host", []llm.Option{llm.WithBaseURL("http:///v1")}, llm.ErrInvalidOption},
		{"unparsable", []llm.Option{llm.WithBaseURL("http://[::1")}, llm.ErrInvalidOption},
		{"empty model", []llm.Option{llm.WithAPIKey("k"), llm.WithModel("")}, llm.ErrInvalidOption},
		{"nil client", []llm.Option{llm.WithAPIKey("k"), llm.WithHTTPClient(nil)}, llm.ErrInvalidOption},
		{"zero timeout", []llm.Option{llm.WithAPIKey("k"), llm.WithRequestTimeout(0)}, llm.ErrInvalidOption},
		{"negative deadline", []llm.Option{llm.WithAPIKey("k"), llm.WithTurnDeadline(-time.Second)}, llm.ErrInvalidOption},
		{"negative retries", []llm.Option{llm.WithAPIKey("k"), llm.WithMaxRetries(-1)}, llm.ErrInvalidOption},
		{"too many retries", []llm.Option{llm.WithAPIKey("k"), llm.WithMaxRetries(11)}, llm.ErrInvalidOption},
		{"backoff max below base", []llm.Option{llm.WithAPIKey("k"), llm.WithBackoff(time.Second, time.Millisecond)}, llm.ErrInvalidOption},
		{"temperature zero", []llm.Option{llm.WithAPIKey("k"), llm.WithTemperature(0)}, llm.ErrInvalidOption},
		{"temperature high", []llm.Option{llm.WithAPIKey("k"), llm.WithTemperature(2.5)}, llm.ErrInvalidOption},
		{"tool choice", []llm.Option{llm.WithAPIKey("k"), llm.WithToolChoice(llm.ToolChoice(9))}, llm.ErrInvalidOption},
		{"nil logger", []llm.Option{llm.WithAPIKey("k"), llm.WithLogger(nil)}, llm.ErrInvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := llm.New(tt.opts...); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	e, err := llm.New(llm.WithAPIKey("k"), llm.WithHTTPClient(&http.Client{}))
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != llm.DefaultModel || !e.Streaming() || e.Close() != nil {
		t.Errorf("defaults: name %q streaming %v", e.Name(), e.Streaming())
	}
}

func TestToolChoiceString(t *testing.T) {
	for tc, want := range map[llm.ToolChoice]string{
		llm.ToolChoiceFunction: "function", llm.ToolChoiceRequired: "required", llm.ToolChoiceAuto: "auto", llm.ToolChoice(7): "ToolChoice(7)",
	} {
		if tc.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(tc), tc.String(), want)
		}
	}
}
