package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime/llm"
)

// TestDialectMatrix: the examiner gets the same report_observation from every server dialect
// it may be pointed at (openaitest.Dialects, each naming the server it imitates), streamed and
// not: tool calls in pieces or whole, finish_reason variants or none, usage anywhere or nowhere,
// reasoning before the answer, and the call written as text when tool_choice is not enforced.
func TestDialectMatrix(t *testing.T) {
	var want any
	if err := json.Unmarshal([]byte(validArgs), &want); err != nil {
		t.Fatal(err)
	}
	for _, d := range openaitest.Dialects {
		for _, stream := range []bool{true, false} {
			name := d.Name + "/complete"
			if stream {
				name = d.Name + "/stream"
			}
			t.Run(name, func(t *testing.T) {
				t.Logf("imitates: %s", d.Imitates)
				srv := openaitest.New(t, openaitest.WithAPIKey(testKey))
				srv.Enqueue(openaitest.ToolCall(validArgs, openaitest.As(d), openaitest.Streamed(7, 0), openaitest.TokenUsage(321, 45)))
				e := newExaminer(t, srv, append(fast(), llm.WithStreaming(stream), llm.WithMaxRetries(0))...)
				var streamed []byte
				req := turn()
				req.OnArguments = func(b []byte) { streamed = b }
				reply, err := e.Observe(context.Background(), req)
				if err != nil {
					t.Fatalf("Observe: %v", err)
				}
				var got any
				if err := json.Unmarshal(reply.Arguments, &got); err != nil {
					t.Fatalf("arguments %q (content %q): %v", reply.Arguments, reply.Content, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("arguments %s, want %s", reply.Arguments, validArgs)
				}
				// Streamed pieces of a real tool call reach the controller as they come; a call
				// recovered from text arrives whole at the end, never as a partial.
				if stream && d.CallAsText == openaitest.TextCallNone && string(streamed) != string(reply.Arguments) {
					t.Errorf("OnArguments last saw %q, want the whole arguments", streamed)
				}
				if d.CallAsText != openaitest.TextCallNone && streamed != nil {
					t.Errorf("text call streamed as arguments: %q", streamed)
				}
				// Usage is taken wherever the dialect sends it; a server that sends none leaves
				// it unknown, never 0.
				u := reply.Usage
				switch {
				case u == nil || u.Model != e.Name():
					t.Errorf("usage %+v, want one for model %s", u, e.Name())
				case d.Usage == openaitest.UsageNever && (u.PromptTokens != nil || u.CompletionTokens != nil):
					t.Errorf("usage %d/%d from a server that sent none, want unknown", *u.PromptTokens, *u.CompletionTokens)
				case d.Usage != openaitest.UsageNever && (!u.Known() || *u.PromptTokens != 321 || *u.CompletionTokens != 45):
					t.Errorf("usage %+v, want 321 prompt and 45 completion tokens", u)
				}
			})
		}
	}
}

// Text that is not a call stays text: no arguments, so the controller reports no tool call.
func TestDialectPlainTextIsNoCall(t *testing.T) {
	for _, text := range []string{
		"Thank you. What would the hybrid option cost per guest?",
		`I think {"a": 1} is a fine answer`,
		`{"name": "other_tool", "arguments": {"x": 1}}`,
		`[1, 2, 3]`,
	} {
		srv := openaitest.New(t, openaitest.WithAPIKey(testKey))
		srv.Enqueue(openaitest.Content(text))
		e := newExaminer(t, srv, fast()...)
		reply, err := e.Observe(context.Background(), turn())
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if reply.Arguments != nil || reply.Content != text {
			t.Errorf("%q: arguments %q content %q", text, reply.Arguments, reply.Content)
		}
	}
}

// TestRefusedToolChoiceRemembered: a server that refuses a named tool_choice, and "required",
// with a 400 (llama-api-auto-only) is asked again at once with the next weaker form, within the
// same turn and without using up a retry; the examiner keeps the form the server took, so the
// next turn's first request already uses it. Before, every turn failed with the 400.
func TestRefusedToolChoiceRemembered(t *testing.T) {
	var d openaitest.Dialect
	for _, x := range openaitest.Dialects {
		if x.AutoToolChoiceOnly {
			d = x
		}
	}
	if !d.AutoToolChoiceOnly {
		t.Fatal("no dialect refuses tool_choice")
	}
	for _, stream := range []bool{true, false} {
		srv := openaitest.New(t, openaitest.WithAPIKey(testKey))
		for range 2 {
			srv.Enqueue(openaitest.ToolCall(validArgs, openaitest.As(d), openaitest.TokenUsage(100, 10)))
		}
		e := newExaminer(t, srv, append(fast(), llm.WithStreaming(stream), llm.WithMaxRetries(0))...)
		for i := range 2 {
			reply, err := e.Observe(context.Background(), turn())
			if err != nil {
				t.Fatalf("stream=%v turn %d: %v", stream, i+1, err)
			}
			if string(reply.Arguments) == "" || reply.Attempts != 1 {
				t.Errorf("stream=%v turn %d: arguments %q after %d attempts", stream, i+1, reply.Arguments, reply.Attempts)
			}
		}
		var forms []string
		for _, r := range srv.ChatRequests() {
			switch v := r.ToolChoice.(type) {
			case string:
				forms = append(forms, v)
			default:
				forms = append(forms, "function:"+r.ForcedFunction())
			}
		}
		if got, want := fmt.Sprint(forms), "[function:report_observation required auto auto]"; got != want {
			t.Errorf("stream=%v: tool_choice sent %s, want %s", stream, got, want)
		}
	}
}
