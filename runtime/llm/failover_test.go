package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/runtime/offline"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// TestFailoverToOffline: an endpoint that fails every call in one way (500, hang, 5 MB body,
// closed connection). After three failed turns the offline examiner takes over, recorded as
// examiner_switched, and the exam completes within bounded wall time.
func TestFailoverToOffline(t *testing.T) {
	exam := runtimetest.DemoExam(t, nil)
	tests := []struct {
		name     string
		b        openaitest.Behaviour
		wantHold bool
	}{
		{"500", openaitest.Status(500), false},
		{"hang", openaitest.Hang(), true},
		{"5 MB body", openaitest.ToolCall(hugeArgs, openaitest.Streamed(64<<10, 0)), false},
		{"closed connection", openaitest.Disconnect(), false},
		{"malformed arguments", openaitest.ToolCall(`{"signals": [{"signalType": `), false},
		{"no tool call", openaitest.Content("Let us talk about something else."), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got := runFailingExam(t, exam, tt.b, runtime.WithHoldingLine(150*time.Millisecond))
			wall := time.Since(start)
			if wall > 45*time.Second {
				t.Errorf("the exam took %v, want it bounded", wall)
			}
			done := got.payloads(t, runtime.EventExamCompleted)
			if len(done) != 1 || done[0].(*runtime.ExamCompletedPayload).State != runtime.StateCompleted {
				t.Fatalf("exam_completed %+v, want completed", done)
			}
			sw := got.payloads(t, runtime.EventExaminerSwitched)
			if len(sw) != 1 {
				t.Fatalf("examiner_switched %+v, want one", sw)
			}
			s := sw[0].(*runtime.ExaminerSwitchedPayload)
			if s.To != "offline" || s.Failures != runtime.DefaultFailoverAfter || s.Policy != spec.ExaminerFailureOffline || s.LastError == "" {
				t.Errorf("switch = %+v", s)
			}
			var llmObs, offlineObs int
			for _, p := range got.payloads(t, runtime.EventObservation) {
				switch p.(*runtime.ObservationPayload).Examiner {
				case "offline":
					offlineObs++
				default:
					llmObs++
				}
			}
			if llmObs != runtime.DefaultFailoverAfter || offlineObs == 0 {
				t.Errorf("observations: %d by the LLM, %d offline; want %d, then offline", llmObs, offlineObs, runtime.DefaultFailoverAfter)
			}
			holds := 0
			for _, p := range got.payloads(t, runtime.EventSpoken) {
				if p.(*runtime.SpokenPayload).Source == runtime.SpokenHolding {
					holds++
				}
			}
			if tt.wantHold && holds == 0 {
				t.Error("no holding line while the examiner hung")
			}
			if holds > runtime.DefaultFailoverAfter {
				t.Errorf("%d holding lines, want at most one per failed turn", holds)
			}
			t.Logf("%s: completed in %v with %d holding lines", tt.name, wall.Round(time.Millisecond), holds)
		})
	}
}

// TestFailoverInterrupt: a spec that chooses to end the exam on examiner failure.
func TestFailoverInterrupt(t *testing.T) {
	exam := runtimetest.DemoExam(t, func(src string) string {
		return strings.Replace(src, "policies:\n", "policies:\n  onExaminerFailure: interrupt\n", 1)
	})
	got := runFailingExam(t, exam, openaitest.Status(500))
	done := got.payloads(t, runtime.EventExamCompleted)
	if len(done) != 1 {
		t.Fatalf("exam_completed %+v", done)
	}
	if d := done[0].(*runtime.ExamCompletedPayload); d.State != runtime.StateAborted || !strings.Contains(d.Reason, "examiner unavailable") {
		t.Errorf("completed %+v, want aborted: examiner unavailable", d)
	}
	sw := got.payloads(t, runtime.EventExaminerSwitched)
	if len(sw) != 1 || sw[0].(*runtime.ExaminerSwitchedPayload).To != "" || sw[0].(*runtime.ExaminerSwitchedPayload).Policy != spec.ExaminerFailureInterrupt {
		t.Errorf("examiner_switched %+v", sw)
	}
}

// runFailingExam runs the demo exam with an LLM examiner whose endpoint always answers b, the
// offline examiner as the fallback, answering until the exam ends (or too many turns).
func runFailingExam(t *testing.T, exam *spec.Exam, b openaitest.Behaviour, opts ...runtime.Option) *events {
	t.Helper()
	srv := openaitest.New(t, answerAlways(b))
	e := newExaminer(t, srv, append(fast(), llm.WithFirstTokenTimeout(500*time.Millisecond))...)
	off, err := offline.New()
	if err != nil {
		t.Fatal(err)
	}
	c, got := startController(t, exam, e, append([]runtime.Option{runtime.WithExaminerFailover(off, runtime.DefaultFailoverAfter)}, opts...)...)
	ctx := context.Background()
	// The greeting until the examiner has been replaced, then the script from the start.
	turns, next := 0, 0
	for !c.Snapshot().State.Terminal() && turns < 30 {
		text := runtimetest.RehearsalAnswers[0]
		if c.Snapshot().Examiner == "offline" {
			if next >= len(runtimetest.RehearsalAnswers) {
				break
			}
			text = runtimetest.RehearsalAnswers[next]
			next++
		}
		if err := c.SubmitTurn(ctx, runtime.Turn{Text: text, Confidence: 0.95, Source: runtime.SourceTyped}); err != nil {
			t.Fatalf("turn %d: %v", turns+1, err)
		}
		turns++
	}
	return got
}
