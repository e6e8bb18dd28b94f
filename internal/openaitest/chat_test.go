package openaitest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
)

const testKey = "sk-test-0123456789"

func client(srv *openaitest.Server) *openai.Client {
	cfg := openai.DefaultConfig(testKey)
	cfg.BaseURL = srv.URL()
	cfg.HTTPClient = srv.Client()
	return openai.NewClientWithConfig(cfg)
}

func chatRequest() openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Model: "gpt-4o-mini",
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "You are an examiner."},
			{Role: openai.ChatMessageRoleUser, Content: "I would serve the breakfast at seven."},
		},
		Tools: []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name:       "report_observation",
			Parameters: json.RawMessage(`{"type":"object","properties":{"spokenText":{"type":"string"}}}`),
		}}},
		ToolChoice: openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: "report_observation"}},
	}
}

// collect reads a stream to the end, returning the chunks and the final error (io.EOF on success).
func collect(t *testing.T, s *openai.ChatCompletionStream) ([]openai.ChatCompletionStreamResponse, error) {
	t.Helper()
	defer s.Close()
	var out []openai.ChatCompletionStreamResponse
	for {
		c, err := s.Recv()
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
}

func TestChatNonStreaming(t *testing.T) {
	const args = `{"spokenText":"Thank you. Why seven?","signals":[]}`
	tests := []struct {
		name       string
		behaviour  openaitest.Behaviour
		wantArgs   string
		wantName   string
		wantText   string
		wantFinish openai.FinishReason
	}{
		{"tool call", openaitest.ToolCall(args), args, "report_observation", "", openai.FinishReasonToolCalls},
		{"invalid JSON arguments", openaitest.ToolCall(`{"spokenText": "unterminated`), `{"spokenText": "unterminated`, "report_observation", "", openai.FinishReasonToolCalls},
		{"named function", openaitest.ToolCall(args, openaitest.FunctionName("other")), args, "other", "", openai.FinishReasonToolCalls},
		{"text and tool call", openaitest.ToolCall(args, openaitest.WithText("Let me think.")), args, "report_observation", "Let me think.", openai.FinishReasonToolCalls},
		{"content only", openaitest.Content("I cannot call tools."), "", "", "I cannot call tools.", openai.FinishReasonStop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithAPIKey(testKey))
			srv.Enqueue(tt.behaviour)
			resp, err := client(srv).CreateChatCompletion(context.Background(), chatRequest())
			if err != nil {
				t.Fatalf("CreateChatCompletion: %v", err)
			}
			if resp.Model != "gpt-4o-mini" || resp.Object != "chat.completion" || resp.ID == "" {
				t.Errorf("model/object/id = %q/%q/%q", resp.Model, resp.Object, resp.ID)
			}
			if resp.Usage.TotalTokens <= 0 || resp.Usage.TotalTokens != resp.Usage.PromptTokens+resp.Usage.CompletionTokens {
				t.Errorf("usage = %+v", resp.Usage)
			}
			if len(resp.Choices) != 1 {
				t.Fatalf("choices = %d", len(resp.Choices))
			}
			ch := resp.Choices[0]
			if ch.FinishReason != tt.wantFinish {
				t.Errorf("finish = %q, want %q", ch.FinishReason, tt.wantFinish)
			}
			if ch.Message.Content != tt.wantText {
				t.Errorf("content = %q, want %q", ch.Message.Content, tt.wantText)
			}
			if tt.wantName == "" {
				if len(ch.Message.ToolCalls) != 0 {
					t.Errorf("tool calls = %+v, want none", ch.Message.ToolCalls)
				}
				return
			}
			if len(ch.Message.ToolCalls) != 1 {
				t.Fatalf("tool calls = %+v", ch.Message.ToolCalls)
			}
			tc := ch.Message.ToolCalls[0]
			if tc.Function.Name != tt.wantName || tc.Function.Arguments != tt.wantArgs || tc.Type != openai.ToolTypeFunction || tc.ID == "" {
				t.Errorf("tool call = %+v", tc)
			}
		})
	}
}

func TestChatStreaming(t *testing.T) {
	const args = `{"spokenText":"Café au lait — très bien. Why?","signals":[{"signalType":"x","excerpt":"é","confidence":0.5}]}`
	tests := []struct {
		name          string
		behaviour     openaitest.Behaviour
		includeUsage  bool
		wantArgs      string
		wantText      string
		wantFinish    openai.FinishReason
		minArgsChunks int
	}{
		{"tool call in 5-byte pieces", openaitest.ToolCall(args, openaitest.Streamed(5, time.Millisecond)), false, args, "", openai.FinishReasonToolCalls, len(args) / 8},
		{"tool call default pieces with usage", openaitest.ToolCall(args), true, args, "", openai.FinishReasonToolCalls, 3},
		{"text then tool call", openaitest.ToolCall(args, openaitest.WithText("Hmm, let me see.")), false, args, "Hmm, let me see.", openai.FinishReasonToolCalls, 3},
		{"content only", openaitest.Content("No tool for me, thanks.", openaitest.Streamed(4, 0)), true, "", "No tool for me, thanks.", openai.FinishReasonStop, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Enqueue(tt.behaviour)
			req := chatRequest()
			if tt.includeUsage {
				req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
			}
			stream, err := client(srv).CreateChatCompletionStream(context.Background(), req)
			if err != nil {
				t.Fatalf("CreateChatCompletionStream: %v", err)
			}
			chunks, err := collect(t, stream)
			if !errors.Is(err, io.EOF) {
				t.Fatalf("stream ended with %v, want io.EOF", err)
			}
			var gotArgs, gotText, name, id string
			var finish openai.FinishReason
			argChunks := 0
			var usage *openai.Usage
			for _, c := range chunks {
				if c.Model != "gpt-4o-mini" {
					t.Errorf("chunk model = %q", c.Model)
				}
				if c.Usage != nil {
					usage = c.Usage
				}
				for _, ch := range c.Choices {
					gotText += ch.Delta.Content
					if ch.FinishReason != "" {
						finish = ch.FinishReason
					}
					for _, tc := range ch.Delta.ToolCalls {
						if tc.Index == nil || *tc.Index != 0 {
							t.Errorf("tool call delta without index 0: %+v", tc)
						}
						if tc.ID != "" {
							id = tc.ID
						}
						if tc.Function.Name != "" {
							name = tc.Function.Name
						}
						if tc.Function.Arguments != "" {
							argChunks++
							gotArgs += tc.Function.Arguments
						}
					}
				}
			}
			if gotArgs != tt.wantArgs || gotText != tt.wantText || finish != tt.wantFinish {
				t.Errorf("args %q text %q finish %q; want %q %q %q", gotArgs, gotText, finish, tt.wantArgs, tt.wantText, tt.wantFinish)
			}
			if tt.wantArgs != "" && (name != "report_observation" || id == "") {
				t.Errorf("tool call name %q id %q", name, id)
			}
			if argChunks < tt.minArgsChunks {
				t.Errorf("arguments came in %d chunks, want at least %d", argChunks, tt.minArgsChunks)
			}
			if tt.includeUsage != (usage != nil) {
				t.Errorf("usage chunk present = %v, want %v", usage != nil, tt.includeUsage)
			}
		})
	}
}

func TestChatErrors(t *testing.T) {
	tests := []struct {
		name      string
		behaviour openaitest.Behaviour
		stream    bool
		code      int
		typ       string
		msg       string
	}{
		{"500", openaitest.Status(500), false, 500, "server_error", "The server had an error"},
		{"500 streaming", openaitest.Status(500), true, 500, "server_error", "The server had an error"},
		{"429", openaitest.RateLimited(2 * time.Second), false, 429, "requests", "Rate limit reached"},
		{"400 custom", openaitest.Status(400, openaitest.ErrorBody("invalid_request_error", "bad_tools", "tools are wrong")), true, 400, "invalid_request_error", "tools are wrong"},
		{"503 after delay", openaitest.Status(503, openaitest.Delay(5*time.Millisecond)), false, 503, "server_error", "overloaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Enqueue(tt.behaviour)
			var err error
			if tt.stream {
				_, err = client(srv).CreateChatCompletionStream(context.Background(), chatRequest())
			} else {
				_, err = client(srv).CreateChatCompletion(context.Background(), chatRequest())
			}
			var apiErr *openai.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v (%T), want *openai.APIError", err, err)
			}
			if apiErr.HTTPStatusCode != tt.code || apiErr.Type != tt.typ || !strings.Contains(apiErr.Message, tt.msg) {
				t.Errorf("APIError = %d %q %q", apiErr.HTTPStatusCode, apiErr.Type, apiErr.Message)
			}
		})
	}
}

func TestRetryAfterHeaders(t *testing.T) {
	srv := openaitest.New(t)
	srv.Enqueue(openaitest.RateLimited(1500 * time.Millisecond))
	body, _ := json.Marshal(chatRequest())
	resp, err := srv.Client().Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || resp.Header.Get("retry-after-ms") != "1500" {
		t.Errorf("status %d Retry-After %q retry-after-ms %q", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("retry-after-ms"))
	}
	var e struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    string  `json:"code"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if e.Error.Code != "rate_limit_exceeded" || e.Error.Type != "requests" || e.Error.Param != nil {
		t.Errorf("error body = %+v", e.Error)
	}
}

func TestAuthAndRecording(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithAPIKey(testKey))
	cfg := openai.DefaultConfig("sk-wrong")
	cfg.BaseURL = srv.URL()
	_, err := openai.NewClientWithConfig(cfg).CreateChatCompletion(context.Background(), chatRequest())
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 401 || apiErr.Code != "invalid_api_key" {
		t.Fatalf("wrong key: err = %v", err)
	}
	if strings.Contains(err.Error(), "sk-wrong") {
		t.Errorf("401 echoes the key: %v", err)
	}

	srv.Enqueue(openaitest.ToolCall(`{}`))
	if _, err := client(srv).CreateChatCompletion(context.Background(), chatRequest()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("recorded %d requests, want 2", len(reqs))
	}
	if reqs[0].Chat != nil || reqs[0].Behaviour != 0 {
		t.Errorf("rejected request decoded or answered: %+v", reqs[0])
	}
	r := reqs[1]
	if r.Method != "POST" || r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "" || r.Behaviour != openaitest.KindToolCall {
		t.Errorf("record = %s %s auth=%q kind=%v", r.Method, r.Path, r.Header.Get("Authorization"), r.Behaviour)
	}
	if strings.Contains(string(r.Body), testKey) {
		t.Error("body holds the key")
	}
	c := r.Chat
	if c.Model != "gpt-4o-mini" || len(c.Messages) != 2 || c.Messages[1].Content != "I would serve the breakfast at seven." ||
		c.ForcedFunction() != "report_observation" || len(c.Tools) != 1 || c.Tools[0].Function.Name != "report_observation" {
		t.Errorf("decoded chat = %+v", c)
	}
	if srv.Pending() != 0 {
		t.Errorf("pending = %d", srv.Pending())
	}
}

func TestDefaultBehaviour(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithDefault(func(r *openaitest.ChatRequest) openaitest.Behaviour {
		return openaitest.Content("echo: " + r.Messages[len(r.Messages)-1].Content)
	}))
	resp, err := client(srv).CreateChatCompletion(context.Background(), chatRequest())
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.Content; got != "echo: I would serve the breakfast at seven." {
		t.Errorf("content = %q", got)
	}

	plain := openaitest.New(t)
	_, err = client(plain).CreateChatCompletion(context.Background(), chatRequest())
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 500 || !strings.Contains(apiErr.Message, "no chat completion behaviour queued") {
		t.Errorf("empty queue: err = %v", err)
	}
}

func TestRejectsBadRequests(t *testing.T) {
	tests := []struct {
		name string
		body string
		msg  string
	}{
		{"not JSON", `{"model":`, "could not parse the JSON body"},
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, "must provide a model"},
		{"no messages", `{"model":"m","messages":[]}`, "too short"},
		{"bad role", `{"model":"m","messages":[{"role":"robot","content":"hi"}]}`, "Invalid value: 'robot'"},
		{"content parts", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Enqueue(openaitest.Content("fine"))
			resp, err := srv.Client().Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if tt.msg == "" {
				if resp.StatusCode != 200 || srv.ChatRequests()[0].Messages[0].Content != "ab" {
					t.Errorf("status %d body %s", resp.StatusCode, b)
				}
				return
			}
			if resp.StatusCode != 400 || !strings.Contains(string(b), tt.msg) {
				t.Errorf("status %d body %s, want 400 with %q", resp.StatusCode, b, tt.msg)
			}
		})
	}
}

func TestFailuresThatNeverAnswer(t *testing.T) {
	t.Run("hang until the client gives up", func(t *testing.T) {
		srv := openaitest.New(t)
		srv.Enqueue(openaitest.Hang())
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := client(srv).CreateChatCompletion(ctx, chatRequest())
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want deadline exceeded", err)
		}
	})
	t.Run("hang until Close", func(t *testing.T) {
		srv := openaitest.New(t)
		srv.Enqueue(openaitest.Hang())
		errc := make(chan error, 1)
		go func() {
			_, err := client(srv).CreateChatCompletion(context.Background(), chatRequest())
			errc <- err
		}()
		testutil.Eventually(t, 10*time.Second, func() bool { return len(srv.Requests()) > 0 }, "the request to arrive")
		srv.Close()
		if err := testutil.Recv(t, errc, 10*time.Second, "the hung request to end after Close"); err == nil {
			t.Error("hung request succeeded after Close")
		}
	})
	t.Run("disconnect", func(t *testing.T) {
		srv := openaitest.New(t)
		srv.Enqueue(openaitest.Disconnect())
		_, err := client(srv).CreateChatCompletion(context.Background(), chatRequest())
		var apiErr *openai.APIError
		if err == nil || errors.As(err, &apiErr) {
			t.Errorf("err = %v, want a transport error", err)
		}
	})
	for _, tt := range []struct {
		name string
		opt  openaitest.ReplyOption
	}{
		{"cut mid-stream", openaitest.CutAfter(4)},
		{"stall mid-stream", openaitest.StallAfter(4)},
		{"error event mid-stream", openaitest.FailAfter(4)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Enqueue(openaitest.ToolCall(`{"spokenText":"a long enough reply to need many chunks"}`, openaitest.Streamed(4, 0), tt.opt))
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			stream, err := client(srv).CreateChatCompletionStream(ctx, chatRequest())
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := collect(t, stream)
			if err == nil || errors.Is(err, io.EOF) {
				t.Errorf("stream ended with %v, want an error", err)
			}
			if len(chunks) != 4 {
				t.Errorf("got %d chunks before the failure, want 4", len(chunks))
			}
			var apiErr *openai.APIError
			if isEvent := tt.name == "error event mid-stream"; isEvent != errors.As(err, &apiErr) ||
				(isEvent && (apiErr.Type != "server_error" || !strings.Contains(apiErr.Message, "The server had an error"))) {
				t.Errorf("err = %v (%T): an error event must arrive as an APIError", err, err)
			}
		})
	}
}

func TestUnknownPathAndModels(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithModels("m1", "m2"))
	list, err := client(srv).ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 2 || list.Models[0].ID != "m1" {
		t.Errorf("models = %+v", list.Models)
	}
	resp, err := srv.Client().Get(srv.URL() + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status = %d", resp.StatusCode)
	}
}

func TestInvalidOptions(t *testing.T) {
	for _, o := range []openaitest.Option{
		openaitest.WithAPIKey(""), openaitest.WithDefault(nil), openaitest.WithTranscriber(nil),
		openaitest.WithEspeak(""), openaitest.WithVoice(""), openaitest.WithLogger(nil),
	} {
		if _, err := openaitest.Start(o); !errors.Is(err, openaitest.ErrInvalidOption) {
			t.Errorf("Start: err = %v, want ErrInvalidOption", err)
		}
	}
}
