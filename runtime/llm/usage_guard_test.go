package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/runtime/usage"
)

// hostileUsage are usage objects servers got wrong: each was stored as a negative or wrapped
// count, or failed a valid turn (a float, a string).
var hostileUsage = []struct{ name, obj string }{
	{"negative", `{"prompt_tokens":-1000,"completion_tokens":-5,"total_tokens":-1005}`},
	{"int64 max", `{"prompt_tokens":9223372036854775807,"completion_tokens":9223372036854775807,"total_tokens":-2}`},
	{"float", `{"prompt_tokens":12.5,"completion_tokens":3,"total_tokens":15.5}`},
	{"string", `{"prompt_tokens":"12","completion_tokens":"3","total_tokens":"15"}`},
	{"past the bound", `{"prompt_tokens":100000001,"completion_tokens":1,"total_tokens":100000002}`},
	{"not an object", `"lots"`},
}

// TestHostileUsage: a turn whose server reports hostile usage is decided as usual (streamed or
// not), its usage is unknown with a system_error saying why, and the exam's cost is unknown,
// never negative or wrapped.
func TestHostileUsage(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	one := 1.0
	prices := usage.Prices{llm.DefaultModel: {PromptPerMTok: &one, CompletionPerMTok: &one}}
	for _, stream := range []bool{true, false} {
		for _, tc := range hostileUsage {
			t.Run(tc.name+map[bool]string{true: "/streamed", false: "/whole"}[stream], func(t *testing.T) {
				srv := scriptedServer(t, nil, openaitest.ToolCall(validArgs, openaitest.RawUsage(tc.obj)))
				e := newExaminer(t, srv, append(fast(), llm.WithStreaming(stream))...)
				c, got := startController(t, exam, e)
				done := make(chan error, 1)
				go func() {
					done <- c.SubmitTurn(context.Background(), runtime.Turn{Text: "We could run a hybrid buffet.", Source: runtime.SourceTyped})
				}()
				if err := testutil.Recv(t, done, 30*time.Second, "SubmitTurn to return"); err != nil {
					t.Fatalf("SubmitTurn: %v", err)
				}
				obs := got.payloads(t, runtime.EventObservation)
				if len(obs) != 1 || !obs[0].(*runtime.ObservationPayload).Valid {
					t.Fatalf("observations %+v, want one valid: the usage must not fail the turn", obs)
				}
				u := obs[0].(*runtime.ObservationPayload).Usage
				if u == nil || u.Known() || u.PromptTokens != nil || u.Invalid == "" {
					t.Errorf("usage %+v, want unknown with the reason", u)
				}
				var noted bool
				for _, p := range got.payloads(t, runtime.EventSystemError) {
					se := p.(*runtime.SystemErrorPayload)
					noted = noted || (se.Code == runtime.CodeUsageInvalid && strings.Contains(se.Message, "unknown"))
				}
				if !noted {
					t.Error("no usage_invalid system_error")
				}
				var tot usage.Totals
				tot.AddPayload(obs[0])
				if cost := tot.Cost(prices); cost.Known || cost.Amount < 0 {
					t.Errorf("cost %+v, want unknown", cost)
				}
			})
		}
	}
}

// TestUsageGuardKeepsValid: valid usage passes the guard byte for byte and is counted.
func TestUsageGuardKeepsValid(t *testing.T) {
	for _, obj := range []string{
		`{"id":"x","usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":2}}}`,
		`{"id":"x","usage":null}`, `{"id":"x"}`, `[1,2]`, `not json`,
	} {
		if out, reason := llm.CheckUsageJSON([]byte(obj)); string(out) != obj || reason != "" {
			t.Errorf("%s: %s %q, want it unchanged", obj, out, reason)
		}
	}
}

// FuzzCheckUsageJSON: whatever a server sends, the guard either leaves the reply alone or
// gives it a null usage with a reason, and what it leaves never holds a count go-openai would
// refuse or one outside 0..MaxUsageTokens.
func FuzzCheckUsageJSON(f *testing.F) {
	for _, tc := range hostileUsage {
		f.Add(`{"id":"x","usage":` + tc.obj + `}`)
	}
	f.Add(`{"usage":{"prompt_tokens":1e3}}`)
	f.Fuzz(func(t *testing.T, obj string) {
		out, reason := llm.CheckUsageJSON([]byte(obj))
		if reason == "" && string(out) != obj {
			t.Fatalf("changed without a reason: %s -> %s", obj, out)
		}
		if reason != "" {
			if again, r2 := llm.CheckUsageJSON(out); r2 != "" || string(again) != string(out) {
				t.Fatalf("the guarded reply is refused again: %s (%s)", out, r2)
			}
		}
	})
}
