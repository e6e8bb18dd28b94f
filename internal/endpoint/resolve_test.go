package endpoint_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/endpoint"
	"github.com/examtui/examtui/runtime/llm"
)

func lookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// The fallback rule: a stage's own setting, else the shared OPENAI_* one; a stage with its own
// base URL never gets the shared key.
func TestResolveLookup(t *testing.T) {
	shared := map[string]string{"OPENAI_BASE_URL": "http://shared:8080/v1", "OPENAI_API_KEY": "sk-shared", "EXAMTUI_MODEL": "qwen2.5"}
	three := map[string]string{
		"OPENAI_API_KEY":       "sk-shared",
		"EXAMTUI_LLM_BASE_URL": "http://ollama:11434/v1", "EXAMTUI_LLM_MODEL": "llama3.1",
		"EXAMTUI_STT_BASE_URL": "http://whisper:8000/v1", "EXAMTUI_STT_API_KEY": "sk-stt", "EXAMTUI_STT_MODEL": "Systran/faster-whisper-small", "EXAMTUI_STT_TIMEOUT": "8s",
		"EXAMTUI_TTS_API_KEY": "sk-tts", "EXAMTUI_TTS_MODEL": "tts-1-hd",
	}
	cases := []struct {
		name  string
		env   map[string]string
		stage endpoint.Stage
		want  endpoint.Endpoint
	}{
		{"nothing set: llm", nil, endpoint.StageLLM, endpoint.Endpoint{Stage: endpoint.StageLLM, Model: llm.DefaultModel}},
		{"nothing set: stt", nil, endpoint.StageSTT, endpoint.Endpoint{Stage: endpoint.StageSTT}},
		{"old env: llm", shared, endpoint.StageLLM, endpoint.Endpoint{Stage: endpoint.StageLLM, BaseURL: "http://shared:8080/v1", APIKey: "sk-shared", Model: "qwen2.5", Configured: true, Shared: true}},
		{"old env: stt", shared, endpoint.StageSTT, endpoint.Endpoint{Stage: endpoint.StageSTT, BaseURL: "http://shared:8080/v1", APIKey: "sk-shared", Configured: true, Shared: true}},
		{"old env: tts", shared, endpoint.StageTTS, endpoint.Endpoint{Stage: endpoint.StageTTS, BaseURL: "http://shared:8080/v1", APIKey: "sk-shared", Configured: true, Shared: true}},
		{"key only: OpenAI", map[string]string{"OPENAI_API_KEY": "sk-x"}, endpoint.StageTTS, endpoint.Endpoint{Stage: endpoint.StageTTS, BaseURL: llm.DefaultBaseURL, APIKey: "sk-x", Configured: true, Shared: true}},
		{"own URL, no own key: the shared key stays home", three, endpoint.StageLLM, endpoint.Endpoint{Stage: endpoint.StageLLM, BaseURL: "http://ollama:11434/v1", Model: "llama3.1", Configured: true}},
		{"own URL and key", three, endpoint.StageSTT, endpoint.Endpoint{Stage: endpoint.StageSTT, BaseURL: "http://whisper:8000/v1", APIKey: "sk-stt", Model: "Systran/faster-whisper-small", Timeout: 8 * time.Second, Configured: true}},
		{"own key only: OpenAI's URL", three, endpoint.StageTTS, endpoint.Endpoint{Stage: endpoint.StageTTS, BaseURL: llm.DefaultBaseURL, APIKey: "sk-tts", Model: "tts-1-hd", Configured: true}},
		{"own key on the shared URL", map[string]string{"OPENAI_BASE_URL": "http://shared/v1", "EXAMTUI_TTS_API_KEY": "sk-tts"}, endpoint.StageTTS,
			endpoint.Endpoint{Stage: endpoint.StageTTS, BaseURL: "http://shared/v1", APIKey: "sk-tts", Configured: true, Shared: true}},
		{"old env: mark takes the examiner's model", shared, endpoint.StageMark, endpoint.Endpoint{Stage: endpoint.StageMark, BaseURL: "http://shared:8080/v1", APIKey: "sk-shared", Model: "qwen2.5", Configured: true, Shared: true}},
		{"mark on its own server, the shared key stays home", map[string]string{"OPENAI_API_KEY": "sk-shared", "EXAMTUI_MARK_BASE_URL": "http://vllm:8000/v1", "EXAMTUI_MARK_MODEL": "qwen2.5-72b", "EXAMTUI_MARK_TIMEOUT": "90s"}, endpoint.StageMark,
			endpoint.Endpoint{Stage: endpoint.StageMark, BaseURL: "http://vllm:8000/v1", Model: "qwen2.5-72b", Timeout: 90 * time.Second, Configured: true}},
		{"EXAMTUI_LLM_MODEL beats EXAMTUI_MODEL", map[string]string{"EXAMTUI_MODEL": "old", "EXAMTUI_LLM_MODEL": "new", "OPENAI_API_KEY": "k"}, endpoint.StageLLM,
			endpoint.Endpoint{Stage: endpoint.StageLLM, BaseURL: llm.DefaultBaseURL, APIKey: "k", Model: "new", Configured: true, Shared: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := endpoint.ResolveLookup(tc.stage, lookup(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestResolveLookupInvalid(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"EXAMTUI_STT_BASE_URL": "whisper:8000"}, "EXAMTUI_STT_BASE_URL"},
		{map[string]string{"OPENAI_BASE_URL": "ftp://x"}, "OPENAI_BASE_URL"},
		{map[string]string{"OPENAI_API_KEY": "k", "EXAMTUI_STT_TIMEOUT": "soon"}, "EXAMTUI_STT_TIMEOUT"},
		{map[string]string{"OPENAI_API_KEY": "k", "EXAMTUI_STT_TIMEOUT": "-1s"}, "EXAMTUI_STT_TIMEOUT"},
	}
	for _, tc := range cases {
		_, err := endpoint.ResolveLookup(endpoint.StageSTT, lookup(tc.env))
		if !errors.Is(err, endpoint.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want ErrInvalid naming %s", tc.env, err, tc.want)
		}
	}
	if _, err := endpoint.ResolveLookup(endpoint.StageUnknown, lookup(nil)); !errors.Is(err, endpoint.ErrUnknownStage) {
		t.Errorf("unknown stage: %v", err)
	}
}

// The key never shows in the endpoint's text or log value.
func TestEndpointStringHidesKey(t *testing.T) {
	e, err := endpoint.ResolveLookup(endpoint.StageLLM, lookup(map[string]string{
		"EXAMTUI_LLM_BASE_URL": "http://user:pw@host/v1", "EXAMTUI_LLM_API_KEY": "sk-secret-123"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{e.String(), e.LogValue().String()} {
		if strings.Contains(s, "sk-secret-123") || strings.Contains(s, "pw@") || !strings.Contains(s, "key=set") {
			t.Errorf("endpoint text %q", s)
		}
	}
}

func TestParseStage(t *testing.T) {
	for _, st := range endpoint.Stages {
		got, err := endpoint.ParseStage(strings.ToUpper(st.String()))
		if err != nil || got != st {
			t.Errorf("ParseStage(%s) = %v, %v", st, got, err)
		}
	}
	if _, err := endpoint.ParseStage("panel"); !errors.Is(err, endpoint.ErrUnknownStage) {
		t.Errorf("ParseStage(panel): %v", err)
	}
}
