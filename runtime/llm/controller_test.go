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
	"github.com/examtui/examtui/spec"
)

// TestWithController runs the real controller on the demo exam with this examiner against the
// test server: a good streamed reply is observed and spoken; every kind of failure ends in the
// controller's fallback line and a system_error, within the turn.
func TestWithController(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	const answer = "We could run a hybrid buffet, with eggs cooked to order for business travellers."
	tests := []struct {
		name      string
		queue     []openaitest.Behaviour
		always    *openaitest.Behaviour
		opts      []llm.Option
		wantValid bool
		wantError bool
	}{
		{name: "streamed tool call", queue: []openaitest.Behaviour{openaitest.ToolCall(validArgs, openaitest.Streamed(8, time.Millisecond))}, wantValid: true},
		{name: "retried 503", queue: []openaitest.Behaviour{openaitest.Status(503), openaitest.ToolCall(validArgs)}, wantValid: true},
		{name: "invalid JSON arguments", queue: []openaitest.Behaviour{openaitest.ToolCall(`{"signals":[{"signalType":"proposes_`)}, wantError: true},
		{name: "no tool call", queue: []openaitest.Behaviour{openaitest.Content("Sounds good!")}, wantError: true},
		{name: "500 forever", always: ptr(openaitest.Status(500)), wantError: true},
		{name: "hang forever", always: ptr(openaitest.Hang()), wantError: true,
			opts: []llm.Option{llm.WithRequestTimeout(100 * time.Millisecond), llm.WithTurnDeadline(400 * time.Millisecond)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := scriptedServer(t, tt.always, tt.queue...)
			e := newExaminer(t, srv, append(fast(), tt.opts...)...)
			c, got := startController(t, exam, e)
			ctx := context.Background()
			done := make(chan error, 1)
			go func() {
				done <- c.SubmitTurn(ctx, runtime.Turn{Text: answer, Confidence: 0.95, Source: runtime.SourceMic})
			}()
			if err := testutil.Recv(t, done, 30*time.Second, "SubmitTurn to return"); err != nil {
				t.Fatalf("SubmitTurn: %v", err)
			}

			reqs := srv.ChatRequests()
			if len(reqs) == 0 {
				t.Fatal("the examiner sent no request")
			}
			last := reqs[0].Messages[len(reqs[0].Messages)-1]
			if last.Role != "user" || !strings.Contains(last.Content, "hybrid buffet") || reqs[0].ForcedFunction() != spec.ReportObservationName {
				t.Errorf("request: last message %s %q, forced %q", last.Role, last.Content, reqs[0].ForcedFunction())
			}
			for _, m := range reqs[0].Messages {
				if m.Role == "developer" {
					t.Error("developer role sent to a server that was not told to accept it")
				}
			}

			obs := got.payloads(t, runtime.EventObservation)
			sysErrs := got.payloads(t, runtime.EventSystemError)
			var fallback bool
			for _, p := range got.payloads(t, runtime.EventSpoken) {
				if p.(*runtime.SpokenPayload).Source == runtime.SpokenFallback {
					fallback = true
				}
			}
			if tt.wantValid {
				if len(obs) == 0 || !obs[len(obs)-1].(*runtime.ObservationPayload).Valid {
					t.Errorf("observations %+v, want a valid one", obs)
				} else if o := obs[len(obs)-1].(*runtime.ObservationPayload); o.Examiner != llm.DefaultModel || string(o.Raw) != validArgs {
					t.Errorf("observation examiner %q raw %s", o.Examiner, o.Raw)
				}
				if fallback || len(sysErrs) > 0 {
					t.Errorf("fallback %v, system errors %+v", fallback, sysErrs)
				}
			}
			if tt.wantError && (!fallback || len(sysErrs) == 0) {
				t.Errorf("fallback %v, system errors %+v: want both", fallback, sysErrs)
			}
			for _, p := range sysErrs {
				t.Logf("system_error: %+v", p)
			}
		})
	}
}
