package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// TestConsolePayloadFields checks the fields the console draws before and between turns: the
// plan of nodes and the budgets on exam_state, each node's limits on node_entered.
func TestConsolePayloadFields(t *testing.T) {
	h, _ := intoPlan(t, nil)
	states := payloads[*runtime.ExamStatePayload](h)
	if len(states) != 3 {
		t.Fatalf("exam_state events %+v", states)
	}
	wantNodes := "intro plan after-evidence after-followups after-time after-offtopic after-skip after-distress after-admin"
	if got := strings.Join(states[0].Nodes, " "); got != wantNodes {
		t.Errorf("first exam_state nodes %q, want %q", got, wantNodes)
	}
	for i, s := range states {
		if s.TotalTimeBudgetSec != 600 {
			t.Errorf("exam_state %d totalTimeBudgetSec %d", i, s.TotalTimeBudgetSec)
		}
	}
	inProgress := states[2]
	if inProgress.State != runtime.StateInProgress || inProgress.ExamDeadlineAt != t0.Add(600*time.Second).Format(time.RFC3339Nano) {
		t.Errorf("in_progress %+v", inProgress)
	}

	ne := payloads[*runtime.NodeEnteredPayload](h)
	if len(ne) != 2 {
		t.Fatalf("node_entered %+v", ne)
	}
	intro, plan := ne[0], ne[1]
	if intro.Kind != "scaffolding" || intro.MaxFollowUps != 1 || intro.TimeBudgetSec != 60 || intro.RequiredEvidenceCount != 1 ||
		intro.MaxOffTopicRedirects != 2 || intro.MaxClarifications != 1 || intro.From != "" || len(intro.EvidenceTargets) != 0 {
		t.Errorf("intro node_entered %+v", intro)
	}
	entered := t0.Add(2 * time.Second) // intoPlan's one answer takes 2 s of virtual time
	want := runtime.NodeEnteredPayload{NodeID: "plan", Kind: "assessment", Persona: "examiner",
		Scenario:        "A team plans to move its servers to a new data centre over one weekend. Nothing has been tested.",
		EvidenceTargets: []string{"names_risk", "proposes_fix"}, MaxFollowUps: 2, TimeBudgetSec: 120,
		Progress: runtime.Progress{CurrentNodeIndex: 2, TotalNodes: 9}, From: "intro", Reason: "evidence_sufficient",
		DeadlineAt: entered.Add(120 * time.Second).Format(time.RFC3339Nano), RequiredEvidenceCount: 2, MaxOffTopicRedirects: 2, MaxClarifications: 1}
	gotJSON, _ := json.Marshal(plan)
	wantJSON, _ := json.Marshal(&want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("plan node_entered\n got %s\nwant %s", gotJSON, wantJSON)
	}

	// A pause moves both deadlines; the resuming exam_state restates them.
	if err := h.c.Control(h.ctx, runtime.ControlPause, "proctor"); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(300 * time.Second)
	if err := h.c.Control(h.ctx, runtime.ControlResume, "proctor"); err != nil {
		t.Fatal(err)
	}
	states = payloads[*runtime.ExamStatePayload](h)
	paused, resumed := states[len(states)-2], states[len(states)-1]
	if paused.State != runtime.StatePaused || paused.DeadlineAt != "" || paused.ExamDeadlineAt != "" {
		t.Errorf("paused exam_state carries deadlines: %+v", paused)
	}
	if resumed.DeadlineAt != entered.Add(420*time.Second).Format(time.RFC3339Nano) ||
		resumed.ExamDeadlineAt != t0.Add(900*time.Second).Format(time.RFC3339Nano) {
		t.Errorf("resumed exam_state %+v", resumed)
	}
}

// timedExaminer reports fixed model timings, like a streaming LLM examiner.
type timedExaminer struct {
	args            string
	first, complete time.Duration
}

func (e *timedExaminer) Name() string { return "timed" }

func (e *timedExaminer) Observe(_ context.Context, req *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	return &runtime.ExaminerReply{Arguments: json.RawMessage(e.args), FirstToken: e.first, Complete: e.complete, Attempts: 1}, nil
}

// TestTurnLatencyStages checks that the observation event carries every latency stage: the
// audio stages measured upstream, the examiner's timings and the controller's own.
func TestTurnLatencyStages(t *testing.T) {
	ex := &timedExaminer{args: runtimetest.Args{AnswerQuality: "partial", SpokenText: "Could you say more?"}.String(),
		first: 40 * time.Millisecond, complete: 120 * time.Millisecond}
	h := newHarness(t, compileTestExam(t, "basic.yaml", nil), ex)
	h.start()
	h.clock.Advance(2 * time.Second)
	lat := runtime.Latency{EndpointingMs: 250, STTMs: 180, TTSFirstByteMs: 90}
	if err := h.c.SubmitTurn(h.ctx, runtime.Turn{Text: "Um.", Duration: time.Second, Source: runtime.SourceMic, Confidence: 0.9, Latency: lat}); err != nil {
		t.Fatal(err)
	}
	got := h.lastObservation().Latency
	if got.EndpointingMs != 250 || got.STTMs != 180 || got.TTSFirstByteMs != 90 || got.LLMFirstTokenMs != 40 || got.LLMCompleteMs != 120 {
		t.Fatalf("latency %+v", got)
	}
	if got.FiltersMs < 0 || got.FiltersMs > 1000 {
		t.Fatalf("filters %v ms", got.FiltersMs)
	}
	// Without streamed speech, speech starts when the call completes.
	if want := 250 + 180 + 120 + got.FiltersMs + 90; abs(got.TotalMs-want) > 0.01 {
		t.Fatalf("total %v, want %v", got.TotalMs, want)
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// TestLLMContextNeverHoldsTransitions plays the example exam and checks every context the
// controller hands the examiner: no transition reason and no successor node id may appear, so
// the model cannot learn how to steer the exam (docs/exam-format.md, "How one turn is decided").
func TestLLMContextNeverHoldsTransitions(t *testing.T) {
	rec := &recordingExaminer{inner: newOffline(t)}
	h := newHarness(t, runtimetest.DemoExam(t, nil), rec)
	h.start()
	for _, line := range testutil.RehearsalSaid() {
		h.say(line)
	}
	if s(h).State != runtime.StateCompleted {
		t.Fatalf("exam did not complete: %+v", s(h))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) < 5 {
		t.Fatalf("only %d examiner requests", len(rec.reqs))
	}
	var forbidden []string
	for _, r := range spec.Reasons {
		forbidden = append(forbidden, r.String())
	}
	for _, r := range rec.reqs {
		var succ []string
		if n := r.Node.Controller.Next; n != "" {
			succ = append(succ, n)
		}
		for _, to := range r.Node.Controller.Transitions {
			succ = append(succ, to)
		}
		if len(r.Messages) < 2 || !strings.Contains(r.Messages[0].Content, "examiner") && !strings.Contains(r.Messages[0].Content, "manager") {
			t.Fatalf("turn %d: context without a role message: %+v", r.Turn, r.Messages)
		}
		for i, m := range r.Messages {
			for _, f := range append(append([]string{}, forbidden...), succ...) {
				if strings.Contains(m.Content, f) {
					t.Errorf("turn %d at %s: message %d (%s) names %q:\n%s", r.Turn, r.Node.NodeID, i, m.Role, f, m.Content)
				}
			}
		}
	}
}

func s(h *harness) runtime.Snapshot { return h.c.Snapshot() }

// recordingExaminer passes turns to another examiner and keeps every request.
type recordingExaminer struct {
	inner runtime.Examiner
	mu    sync.Mutex
	reqs  []*runtime.ExaminerRequest
}

func (r *recordingExaminer) Name() string { return r.inner.Name() }

func (r *recordingExaminer) Observe(ctx context.Context, req *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	r.mu.Lock()
	cp := *req
	cp.Messages = append([]spec.Message(nil), req.Messages...)
	r.reqs = append(r.reqs, &cp)
	r.mu.Unlock()
	return r.inner.Observe(ctx, req)
}
