package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/spec"
)

func TestObserveSendsTheTurn(t *testing.T) {
	tests := []struct {
		name          string
		opts          []llm.Option
		stream        bool
		developerRole string
		toolChoice    string // JSON of tool_choice
		temperature   *float64
	}{
		{"streaming", nil, true, "system", `{"function":{"name":"report_observation"},"type":"function"}`, ptr(0.2)},
		{"non-streaming", []llm.Option{llm.WithStreaming(false)}, false, "system", `{"function":{"name":"report_observation"},"type":"function"}`, ptr(0.2)},
		{"developer role kept", []llm.Option{llm.WithDeveloperRole(true)}, true, "developer", `{"function":{"name":"report_observation"},"type":"function"}`, ptr(0.2)},
		{"tool_choice required", []llm.Option{llm.WithToolChoice(llm.ToolChoiceRequired), llm.WithTemperature(0.7)}, true, "system", `"required"`, ptr(0.7)},
		{"reasoning model has no temperature", []llm.Option{llm.WithModel("o3-mini"), llm.WithStreaming(false)}, false, "system", `{"function":{"name":"report_observation"},"type":"function"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithAPIKey(testKey))
			srv.Enqueue(openaitest.ToolCall(validArgs))
			e := newExaminer(t, srv, tt.opts...)
			reply, err := observe(t, e, context.Background(), turn())
			if err != nil {
				t.Fatalf("Observe: %v", err)
			}
			if string(reply.Arguments) != validArgs {
				t.Errorf("arguments = %s", reply.Arguments)
			}
			if reply.Attempts != 1 || reply.Complete <= 0 || reply.Content != "" {
				t.Errorf("reply = attempts %d complete %v content %q", reply.Attempts, reply.Complete, reply.Content)
			}
			if tt.stream != (reply.FirstToken > 0) || reply.FirstToken > reply.Complete {
				t.Errorf("first token %v, complete %v, streaming %v", reply.FirstToken, reply.Complete, tt.stream)
			}

			reqs := srv.ChatRequests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			got := reqs[0]
			wantModel := llm.DefaultModel
			if e.Name() != llm.DefaultModel {
				wantModel = e.Name()
			}
			if got.Model != wantModel || got.Stream != tt.stream {
				t.Errorf("model %q stream %v", got.Model, got.Stream)
			}
			if tt.stream && (got.StreamOptions == nil || !got.StreamOptions.IncludeUsage) {
				t.Errorf("stream_options = %+v", got.StreamOptions)
			}
			if (tt.temperature == nil) != (got.Temperature == nil) || (tt.temperature != nil && *got.Temperature != *tt.temperature) {
				t.Errorf("temperature = %v, want %v", deref(got.Temperature), deref(tt.temperature))
			}
			choice, _ := json.Marshal(got.ToolChoice)
			if string(choice) != tt.toolChoice {
				t.Errorf("tool_choice = %s, want %s", choice, tt.toolChoice)
			}
			if len(got.Tools) != 1 || got.Tools[0].Type != "function" || got.Tools[0].Function.Name != spec.ReportObservationName {
				t.Fatalf("tools = %+v", got.Tools)
			}
			wantParams, _ := json.Marshal(spec.ReportObservationTool().Parameters)
			if !jsonEqual(t, got.Tools[0].Function.Parameters, wantParams) || got.Tools[0].Function.Description == "" {
				t.Errorf("tool parameters = %s", got.Tools[0].Function.Parameters)
			}
			wantRoles := []string{"system", tt.developerRole, "assistant", "user"}
			in := turn().Messages
			if len(got.Messages) != len(in) {
				t.Fatalf("messages = %+v", got.Messages)
			}
			for i, m := range got.Messages {
				if m.Role != wantRoles[i] || m.Content != in[i].Content {
					t.Errorf("message %d = %s %q, want %s %q", i, m.Role, m.Content, wantRoles[i], in[i].Content)
				}
			}
		})
	}
}

func TestOnArgumentsGrowingPrefixes(t *testing.T) {
	srv := openaitest.New(t)
	srv.Enqueue(openaitest.ToolCall(validArgs, openaitest.Streamed(7, 0)))
	e := newExaminer(t, srv)
	req := turn()
	var partials [][]byte
	req.OnArguments = func(p []byte) { partials = append(partials, p) }
	reply, err := observe(t, e, context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if want := (len(validArgs) + 6) / 7; len(partials) != want {
		t.Errorf("OnArguments called %d times, want %d (one per piece)", len(partials), want)
	}
	for i := range partials {
		if i > 0 && (len(partials[i]) <= len(partials[i-1]) || !bytes.HasPrefix(partials[i], partials[i-1])) {
			t.Fatalf("partial %d %q does not extend %q", i, partials[i], partials[i-1])
		}
	}
	if last := partials[len(partials)-1]; !bytes.Equal(last, reply.Arguments) || string(reply.Arguments) != validArgs {
		t.Errorf("last partial %q, reply %q", last, reply.Arguments)
	}
	// Each partial is the callee's own copy.
	partials[0][0] = 'X'
	if reply.Arguments[0] != '{' || partials[1][0] != '{' {
		t.Error("partials share memory with each other or the reply")
	}
}

func TestRawRepliesPassThrough(t *testing.T) {
	leak := `{"signals":[],"answerQuality":"partial","needsFollowUp":true,"evidenceSufficient":false,"anxietyDetected":false,` +
		`"distressDetected":false,"spokenText":"You reached rubric level analysis for proposes_options; to get evaluation, mention costs."}`
	tests := []struct {
		name     string
		b        openaitest.Behaviour
		wantArgs *string
		wantText string
	}{
		{"invalid JSON arguments", openaitest.ToolCall(`{"signals":[{"signalType":`), ptr(`{"signals":[{"signalType":`), ""},
		{"empty arguments", openaitest.ToolCall(""), ptr(""), ""},
		{"no tool call", openaitest.Content("Sure, tell me more about the buffet."), nil, "Sure, tell me more about the buffet."},
		{"other function only", openaitest.ToolCall(`{}`, openaitest.FunctionName("request_transition")), nil, ""},
		{"rubric-leaking spokenText", openaitest.ToolCall(leak), ptr(leak), ""},
		{"text and tool call", openaitest.ToolCall(validArgs, openaitest.WithText("Okay.")), ptr(validArgs), "Okay."},
	}
	for _, tt := range tests {
		for _, stream := range []bool{true, false} {
			name := tt.name + map[bool]string{true: "/stream", false: "/json"}[stream]
			t.Run(name, func(t *testing.T) {
				srv := openaitest.New(t)
				srv.Enqueue(tt.b)
				e := newExaminer(t, srv, llm.WithStreaming(stream))
				reply, err := observe(t, e, context.Background(), turn())
				if err != nil {
					t.Fatal(err)
				}
				if tt.wantArgs == nil {
					if reply.Arguments != nil {
						t.Errorf("arguments = %q, want nil", reply.Arguments)
					}
				} else if reply.Arguments == nil || string(reply.Arguments) != *tt.wantArgs {
					t.Errorf("arguments = %q (nil %v), want %q", reply.Arguments, reply.Arguments == nil, *tt.wantArgs)
				}
				if reply.Content != tt.wantText {
					t.Errorf("content = %q, want %q", reply.Content, tt.wantText)
				}
			})
		}
	}
}

func TestInvalidRequestsAreNotSent(t *testing.T) {
	two := node()
	two.LLM.Functions = append(two.LLM.Functions, spec.FunctionDef{Name: "other"})
	none := node()
	none.LLM.Functions = nil
	tests := []struct {
		name string
		req  *runtime.ExaminerRequest
	}{
		{"nil request", nil},
		{"no node", &runtime.ExaminerRequest{Messages: turn().Messages}},
		{"two functions", &runtime.ExaminerRequest{Node: two, Messages: turn().Messages}},
		{"no function", &runtime.ExaminerRequest{Node: none, Messages: turn().Messages}},
		{"no messages", &runtime.ExaminerRequest{Node: node()}},
		{"unknown role", &runtime.ExaminerRequest{Node: node(), Messages: []spec.Message{{Role: "tool", Content: "x"}}}},
	}
	srv := openaitest.New(t)
	e := newExaminer(t, srv)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := e.Observe(context.Background(), tt.req); !errors.Is(err, llm.ErrInvalidRequest) {
				t.Errorf("err = %v, want ErrInvalidRequest", err)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func ptr[T any](v T) *T { return &v }

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

// Compile-time: the examiner is what the controller consumes.
var _ runtime.Examiner = (*llm.Examiner)(nil)
