package endpoint_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/endpoint"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
)

const goodKey = "sk-doctor-good-7d1c"

// refusedURL is a loopback address nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr + "/v1"
}

// Each stage's check against a working server, a refused key, a chat-only server, a missing
// model, a server that hangs and nothing listening: the reason and a plain sentence saying it.
func TestCheck(t *testing.T) {
	type row struct {
		name   string
		stage  endpoint.Stage
		srv    func(t *testing.T) *openaitest.Server // nil: refused
		key    string
		model  string
		status endpoint.Status
		reason endpoint.Reason
		detail string
		espeak bool
	}
	withKey := func(opts ...openaitest.Option) func(t *testing.T) *openaitest.Server {
		return func(t *testing.T) *openaitest.Server {
			return openaitest.New(t, append([]openaitest.Option{openaitest.WithAPIKey(goodKey)}, opts...)...)
		}
	}
	rows := []row{
		{name: "llm works", stage: endpoint.StageLLM, srv: withKey(openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour {
			return openaitest.Content("OK")
		})), key: goodKey, model: "gpt-4o-mini", status: endpoint.StatusOK, detail: "works"},
		{name: "stt works", stage: endpoint.StageSTT, srv: withKey(openaitest.WithTranscriber(func(*openaitest.TranscriptionRequest) openaitest.Behaviour {
			return openaitest.Transcribed(openaitest.Transcript{Text: ""})
		})), key: goodKey, status: endpoint.StatusOK, detail: "works"},
		{name: "tts works", stage: endpoint.StageTTS, srv: withKey(), key: goodKey, status: endpoint.StatusOK, detail: "works", espeak: true},
		{name: "llm 401", stage: endpoint.StageLLM, srv: withKey(), key: "sk-wrong-0000", model: "gpt-4o-mini", status: endpoint.StatusFailed, reason: endpoint.ReasonUnauthorized, detail: "the key was refused"},
		{name: "stt 401 without a key", stage: endpoint.StageSTT, srv: withKey(), status: endpoint.StatusFailed, reason: endpoint.ReasonUnauthorized, detail: "EXAMTUI_STT_API_KEY"},
		{name: "tts 401", stage: endpoint.StageTTS, srv: withKey(), key: "sk-wrong-0000", status: endpoint.StatusFailed, reason: endpoint.ReasonUnauthorized, detail: "unauthorized (HTTP 401)"},
		{name: "stt on a chat-only server", stage: endpoint.StageSTT, srv: withKey(openaitest.WithoutAudio()), key: goodKey, status: endpoint.StatusFailed, reason: endpoint.ReasonNoAudioEndpoint, detail: "404 to http://"},
		{name: "tts on a chat-only server", stage: endpoint.StageTTS, srv: withKey(openaitest.WithoutAudio()), key: goodKey, status: endpoint.StatusFailed, reason: endpoint.ReasonNoAudioEndpoint, detail: "/audio/speech"},
		{name: "llm no such model", stage: endpoint.StageLLM, srv: withKey(openaitest.WithDefault(func(r *openaitest.ChatRequest) openaitest.Behaviour {
			return openaitest.Status(404, openaitest.ErrorBody("invalid_request_error", "model_not_found", "The model `"+r.Model+"` does not exist or you do not have access to it."))
		})), key: goodKey, model: "gpt-9", status: endpoint.StatusFailed, reason: endpoint.ReasonNoSuchModel, detail: `"gpt-9"`},
		{name: "llm no such model (Ollama's words)", stage: endpoint.StageLLM, srv: withKey(openaitest.WithDefault(func(r *openaitest.ChatRequest) openaitest.Behaviour {
			return openaitest.Status(404, openaitest.ErrorBody("api_error", "", `model "`+r.Model+`" not found, try pulling it first`))
		})), key: goodKey, model: "llama9", status: endpoint.StatusFailed, reason: endpoint.ReasonNoSuchModel, detail: "try pulling it"},
		{name: "llm refused", stage: endpoint.StageLLM, key: goodKey, model: "m", status: endpoint.StatusFailed, reason: endpoint.ReasonRefused, detail: "connection refused"},
		{name: "stt refused", stage: endpoint.StageSTT, key: goodKey, status: endpoint.StatusFailed, reason: endpoint.ReasonRefused, detail: "nothing listens"},
		{name: "llm timeout", stage: endpoint.StageLLM, srv: withKey(openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour {
			return openaitest.Hang()
		})), key: goodKey, model: "m", status: endpoint.StatusFailed, reason: endpoint.ReasonTimeout, detail: "no answer within 300ms"},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			if tc.espeak {
				testutil.SkipIfShort(t, "espeak-ng")
			}
			ep := endpoint.Endpoint{Stage: tc.stage, APIKey: tc.key, Model: tc.model, Configured: true, Timeout: 300 * time.Millisecond}
			var hc *http.Client
			if tc.srv != nil {
				srv := tc.srv(t)
				ep.BaseURL, hc = srv.URL(), srv.Client()
			} else {
				ep.BaseURL = refusedURL(t)
			}
			if tc.espeak {
				ep.Timeout = 10 * time.Second
			}
			r := endpoint.Check(context.Background(), ep, hc)
			if r.Status != tc.status || r.Reason != tc.reason || !strings.Contains(r.Detail, tc.detail) {
				t.Errorf("got %v %v %q, want %v %v containing %q", r.Status, r.Reason, r.Detail, tc.status, tc.reason, tc.detail)
			}
			js, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if tc.key != "" && (strings.Contains(r.Detail, tc.key) || strings.Contains(string(js), tc.key)) {
				t.Errorf("the key shows: %s", js)
			}
		})
	}
}

func TestCheckNotConfigured(t *testing.T) {
	for _, st := range endpoint.Stages {
		r := endpoint.Check(context.Background(), endpoint.Endpoint{Stage: st}, nil)
		if r.Status != endpoint.StatusNotConfigured || !strings.Contains(r.Detail, "not configured") {
			t.Errorf("%v: %+v", st, r)
		}
	}
}

// The LLM check asks for one token in the field the model accepts: max_tokens, which local
// servers document, or max_completion_tokens for OpenAI's reasoning models.
func TestCheckLLMTokenField(t *testing.T) {
	for _, tc := range []struct {
		model                      string
		maxTokens, maxCompletionTk int
	}{{"llama3.1", 1, 0}, {"o3-mini", 0, 1}} {
		srv := openaitest.New(t, openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour { return openaitest.Content("OK") }))
		r := endpoint.Check(context.Background(), endpoint.Endpoint{Stage: endpoint.StageLLM, BaseURL: srv.URL(), Model: tc.model, Configured: true}, srv.Client())
		reqs := srv.ChatRequests()
		if r.Status != endpoint.StatusOK || len(reqs) != 1 || reqs[0].MaxTokens != tc.maxTokens || reqs[0].MaxCompletionTokens != tc.maxCompletionTk {
			t.Errorf("%s: %v %q, request %+v", tc.model, r.Status, r.Detail, reqs)
		}
	}
}
