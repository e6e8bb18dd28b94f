package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// intoPlan starts the basic exam and answers the scaffolding node, leaving the exam in "plan".
func intoPlan(t *testing.T, edit func(string) string, opts ...runtime.Option) (*harness, *scriptedExaminer) {
	t.Helper()
	ex := &scriptedExaminer{}
	h := newHarness(t, compileTestExam(t, "basic.yaml", edit), ex, opts...)
	h.start()
	ex.push(runtimetest.Args{AnswerQuality: "substantive", SpokenText: "Thank you."}.String())
	h.say("My name is Ada.")
	if s := h.c.Snapshot(); s.NodeID != "plan" {
		t.Fatalf("after the scaffolding answer the node is %q", s.NodeID)
	}
	return h, ex
}

func TestStartStates(t *testing.T) {
	h := newHarness(t, compileTestExam(t, "basic.yaml", nil), newOffline(t))
	if err := h.c.SubmitTurn(h.ctx, runtime.Turn{Text: "hi"}); !errors.Is(err, runtime.ErrNotStarted) {
		t.Fatalf("turn before start: %v", err)
	}
	h.start()
	var states []string
	for _, p := range payloads[*runtime.ExamStatePayload](h) {
		states = append(states, string(p.Previous)+"→"+string(p.State))
	}
	if got := strings.Join(states, " "); got != "created→scaffolding scaffolding→ready ready→in_progress" {
		t.Fatalf("states %s", got)
	}
	if err := h.c.Start(h.ctx); !errors.Is(err, runtime.ErrAlreadyStarted) {
		t.Fatalf("second start: %v", err)
	}
	ne := payloads[*runtime.NodeEnteredPayload](h)
	if len(ne) != 1 || ne[0].NodeID != "intro" || ne[0].Progress.CurrentNodeIndex != 1 || ne[0].Progress.TotalNodes != 9 ||
		ne[0].DeadlineAt != t0.Add(60*time.Second).Format(time.RFC3339Nano) {
		t.Fatalf("node_entered %+v", ne)
	}
	if got := h.spoken(); len(got) != 2 || got[0] != "Welcome to the practice exam." || got[1] != "Please tell me your name." {
		t.Fatalf("spoken on entry %q", got)
	}
	h.checkSeq()
}

func TestTransitionReasons(t *testing.T) {
	twoSignals := runtimetest.Args{Signals: []runtime.Signal{sig("names_risk", "nothing has been tested"), sig("proposes_fix", "test it instead")},
		AnswerQuality: "substantive", EvidenceSufficient: true, SpokenText: "Thank you."}
	followUp := runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, FollowUpType: "probe", SpokenText: "What could go wrong?"}
	offTopic := runtimetest.Args{AnswerQuality: "off_topic", NeedsFollowUp: true, FollowUpType: "redirect", SpokenText: "What do you think of this plan?"}
	tests := []struct {
		name   string
		edit   func(string) string
		drive  func(h *harness, ex *scriptedExaminer)
		want   string // the end node reached
		reason runtime.ExitReason
		guard  string // guardrail_triggered expected for the transition ("" none)
	}{
		{name: "evidence_sufficient", want: "after-evidence", reason: "evidence_sufficient", drive: func(h *harness, ex *scriptedExaminer) {
			ex.push(twoSignals.String())
			h.say("Nothing has been tested, that is a risk; I would test it instead.")
		}},
		{name: "followups_exhausted", want: "after-followups", reason: "followups_exhausted", guard: "followup_limit", drive: func(h *harness, ex *scriptedExaminer) {
			ex.push(followUp.String(), followUp.String(), followUp.String())
			h.say("Hmm, maybe.")
			h.say("Not sure.")
			h.say("Perhaps.")
		}},
		{name: "time_exhausted at the next turn", want: "after-time", reason: "time_exhausted", guard: "time_budget", drive: func(h *harness, ex *scriptedExaminer) {
			ex.push(followUp.String())
			h.clock.Advance(121 * time.Second) // no ticks: the observation finds the budget spent
			h.say("Well, it depends.")
		}},
		{name: "time_exhausted on tick", want: "after-time", reason: "time_exhausted", guard: "time_budget", drive: func(h *harness, ex *scriptedExaminer) {
			h.wait(121 * time.Second)
		}},
		{name: "off_topic_limit", want: "after-offtopic", reason: "off_topic_limit", guard: "off_topic_limit", drive: func(h *harness, ex *scriptedExaminer) {
			ex.push(offTopic.String(), offTopic.String())
			h.say("I like football.")
			h.say("Did you see the match?")
		}},
		{name: "skipped", want: "after-skip", reason: "skipped", drive: func(h *harness, ex *scriptedExaminer) {
			ex.push(runtimetest.Args{CommandDetected: "skip", SpokenText: "OK."}.String())
			h.say("Can I skip this one?")
		}},
		{name: "distress", want: "after-distress", reason: "distress", guard: "distress", drive: func(h *harness, ex *scriptedExaminer) {
			ex.push(runtimetest.Args{DistressDetected: true, AnxietyDetected: true, SpokenText: "Let's stop here."}.String())
			h.say("I can't do this any more.")
		}},
		{name: "admin_advance", want: "after-admin", reason: "admin_advance", drive: func(h *harness, ex *scriptedExaminer) {
			if err := h.c.Control(h.ctx, runtime.ControlAdvance, "proctor"); err != nil {
				h.t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ex := intoPlan(t, tt.edit)
			tt.drive(h, ex)
			s := h.c.Snapshot()
			if s.NodeID != tt.want || s.State != runtime.StateCompleted {
				t.Fatalf("node %s state %s, want %s completed (visits %v)", s.NodeID, s.State, tt.want, h.visits())
			}
			exits := payloads[*runtime.NodeExitPayload](h)
			var planExit *runtime.NodeExitPayload
			for _, e := range exits {
				if e.NodeID == "plan" {
					planExit = e
				}
			}
			if planExit == nil || planExit.Reason != tt.reason || planExit.Next != tt.want {
				t.Fatalf("plan exit %+v, want reason %s", planExit, tt.reason)
			}
			guards := payloads[*runtime.GuardrailTriggeredPayload](h)
			if tt.guard == "" && len(guards) != 0 || tt.guard != "" && (len(guards) != 1 || guards[0].Guardrail != tt.guard) {
				t.Fatalf("guardrails %+v, want %q", guards, tt.guard)
			}
			evs := h.rec.Events()
			if last := evs[len(evs)-1]; last.Event != runtime.EventExamCompleted && last.Event != runtime.EventObservation {
				t.Fatalf("last event %s", last.Event)
			}
			h.checkSeq()
		})
	}
}

func TestEvidenceNeedsLedger(t *testing.T) {
	h, ex := intoPlan(t, nil)
	// The examiner claims sufficiency with one signal; the ledger needs two.
	ex.push(runtimetest.Args{Signals: []runtime.Signal{sig("names_risk", "untested")}, AnswerQuality: "substantive", EvidenceSufficient: true, SpokenText: "What would you change?"}.String())
	h.say("It is untested, which is a risk.")
	if s := h.c.Snapshot(); s.NodeID != "plan" || s.Evidence != 1 {
		t.Fatalf("moved on with %d of 2: %+v", s.Evidence, s)
	}
	if d := h.lastObservation().Decision; d.Action != runtime.DecisionContinue {
		t.Fatalf("decision %+v", d)
	}
}

func TestEvidenceLedger(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.push(runtimetest.Args{Signals: []runtime.Signal{sig("names_risk", "untested"), sig("names_risk", "untested again"), sig("explains_reasoning", "because")},
		AnswerQuality: "substantive", SpokenText: "Go on.", Misconceptions: []runtime.Misconception{{Concept: "backup", Misconception: "RAID is a backup", Correction: "RAID is redundancy"}}}.String())
	h.say("It is untested because nobody had time. RAID is our backup.")
	ex.push(runtimetest.Args{Signals: []runtime.Signal{sig("names_risk", "untested")}, AnswerQuality: "partial", SpokenText: "Go on."}.String())
	h.say("Untested is risky.")
	s := h.c.Snapshot()
	if len(s.Ledger) != 2 || s.Evidence != 1 || s.Coverage != 0.5 || len(s.Misconceptions) != 1 {
		t.Fatalf("ledger %+v evidence %d coverage %v misconceptions %d", s.Ledger, s.Evidence, s.Coverage, len(s.Misconceptions))
	}
	if !s.Ledger[1].Transversal || s.Ledger[1].SignalType != "explains_reasoning" {
		t.Fatalf("transversal entry %+v", s.Ledger[1])
	}
	ups := payloads[*runtime.EvidenceUpdatePayload](h)
	if len(ups) != 3 || ups[2].Misconception == nil || ups[0].Required != 2 || ups[0].Accepted != 1 {
		t.Fatalf("evidence updates %+v", ups)
	}
	if tr := h.lastObservation().Decision.Trace; !strings.Contains(traceDetail(tr, "evidence"), "duplicate 1") {
		t.Fatalf("trace %+v", tr)
	}
}

func traceDetail(tr []runtime.DecisionStep, rule string) string {
	for _, s := range tr {
		if s.Rule == rule {
			return s.Detail
		}
	}
	return ""
}

func TestLowSTTConfidenceRejected(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.push(runtimetest.Args{Signals: []runtime.Signal{sig("names_risk", "it was never tested")}, AnswerQuality: "substantive", SpokenText: "Go on."}.String())
	h.sayConf("It was never tested.", 0.3)
	rec := payloads[*runtime.RecoveryPayload](h)
	if len(rec) != 1 || rec[0].Kind != runtime.RecoveryLowConfidence || rec[0].SignalType != "names_risk" {
		t.Fatalf("recovery %+v", rec)
	}
	if n := len(payloads[*runtime.EvidenceUpdatePayload](h)); n != 0 {
		t.Fatalf("%d evidence updates from a low-confidence segment", n)
	}
	// The same words at good confidence are accepted: a clear segment holds the excerpt. The
	// summary is of both segments that hold it (TestSTTGateClearRepeat has the cases).
	ex.push(runtimetest.Args{Signals: []runtime.Signal{sig("names_risk", "it was never tested")}, AnswerQuality: "substantive", SpokenText: "Go on."}.String())
	h.sayConf("Again: it was never tested.", 0.9)
	ups := payloads[*runtime.EvidenceUpdatePayload](h)
	if len(ups) != 1 || ups[0].STTConfidence != (runtime.STTSummary{Min: 0.3, Max: 0.9, Mean: 0.6}) {
		t.Fatalf("the clear repeat: evidence %+v", ups)
	}
	ex.push(runtimetest.Args{Signals: []runtime.Signal{sig("proposes_fix", "run a rehearsal migration")}, AnswerQuality: "substantive", SpokenText: "Go on."}.String())
	h.sayConf("I would run a rehearsal migration.", 0.8)
	ups = payloads[*runtime.EvidenceUpdatePayload](h)
	if len(ups) != 2 || ups[1].STTConfidence != (runtime.STTSummary{Min: 0.8, Max: 0.8, Mean: 0.8}) {
		t.Fatalf("evidence %+v", ups)
	}
}

func TestMalformedReplies(t *testing.T) {
	tests := []struct {
		name  string
		reply scriptedReply
		code  runtime.ErrorCode
	}{
		{"malformed json", scriptedReply{args: `{"signals":[`}, "observation_invalid"},
		{"missing field", scriptedReply{args: `{"signals":[],"answerQuality":"partial"}`}, "observation_invalid"},
		{"empty object", scriptedReply{args: `{}`}, "observation_invalid"},
		{"not an object", scriptedReply{args: `["spokenText"]`}, "observation_invalid"},
		{"null", scriptedReply{args: `null`}, "observation_invalid"},
		{"wrongly typed field", scriptedReply{args: `{"signals":[],"answerQuality":"partial","needsFollowUp":"yes","evidenceSufficient":false,"anxietyDetected":false,"spokenText":"Go on."}`}, "observation_invalid"},
		{"unknown answerQuality", scriptedReply{args: `{"signals":[],"answerQuality":"brilliant","needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false,"spokenText":"Go on."}`}, "observation_invalid"},
		{"signals not a list", scriptedReply{args: `{"signals":"names_risk","answerQuality":"partial","needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false,"spokenText":"Go on."}`}, "observation_invalid"},
		{"truncated mid-string", scriptedReply{args: `{"signals":[],"answerQuality":"partial","spokenText":"What wou`}, "observation_invalid"},
		{"plain text instead of arguments", scriptedReply{args: `I think the candidate did well.`}, "observation_invalid"},
		{"no tool call", scriptedReply{}, "examiner_failed"},
		{"examiner error", scriptedReply{err: errors.New("HTTP 500")}, "examiner_failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ex := intoPlan(t, nil)
			ex.replies = append(ex.replies, tt.reply)
			h.say("The plan is risky.")
			errs := payloads[*runtime.SystemErrorPayload](h)
			if len(errs) != 1 || errs[0].Code != tt.code {
				t.Fatalf("system errors %+v", errs)
			}
			sp := payloads[*runtime.SpokenPayload](h)
			if last := sp[len(sp)-1]; last.Source != runtime.SpokenFallback || !strings.Contains(last.Text, "What do you think of this plan?") {
				t.Fatalf("fallback %+v", last)
			}
			if o := h.lastObservation(); o.Valid {
				t.Fatalf("observation marked valid")
			}
			// The exam goes on.
			ex.push(runtimetest.Args{SpokenText: "Go on."}.String())
			h.say("Still thinking about it.")
			if s := h.c.Snapshot(); s.State != runtime.StateInProgress || s.NodeID != "plan" {
				t.Fatalf("after fallback %+v", s)
			}
			h.checkSeq()
		})
	}
}

func TestSafetyNetCommand(t *testing.T) {
	h, ex := intoPlan(t, nil)
	// The examiner misses the command; the rule-based classifier catches it.
	ex.push(runtimetest.Args{AnswerQuality: "partial", SpokenText: "Interesting."}.String())
	h.say("Sorry, could you repeat the question?")
	acks := payloads[*runtime.CommandAcknowledgedPayload](h)
	if len(acks) != 1 || acks[0].Command != "repeat" || acks[0].Source != runtime.CommandBySafetyNet {
		t.Fatalf("acks %+v", acks)
	}
	if sp := h.spoken(); sp[len(sp)-1] != "What do you think of this plan?" {
		t.Fatalf("repeat said %q", sp[len(sp)-1])
	}
}

func TestCommands(t *testing.T) {
	cmd := func(c string) string {
		return runtimetest.Args{CommandDetected: runtime.Command(c), SpokenText: "Let me put it differently: is the plan safe?"}.String()
	}
	tests := []struct {
		name     string
		edit     func(string) string
		commands []string // commandDetected per turn
		accepted []bool   // command_acknowledged.accepted per ack
		state    runtime.ExamState
		node     string
		lastSaid string // substring of the last spoken text
		check    func(t *testing.T, h *harness)
	}{
		{name: "repeat", commands: []string{"repeat"}, accepted: []bool{true}, lastSaid: "What do you think of this plan?"},
		{name: "clarification", commands: []string{"clarification"}, accepted: []bool{true}, lastSaid: "is the plan safe?"},
		{name: "clarification limit", commands: []string{"clarification", "clarification"}, accepted: []bool{true, false}, lastSaid: "can't clarify further"},
		{name: "request_rephrase", commands: []string{"request_rephrase"}, accepted: []bool{true}, lastSaid: "is the plan safe?"},
		{name: "slow_down", commands: []string{"slow_down"}, accepted: []bool{true}, lastSaid: "more slowly", check: func(t *testing.T, h *harness) {
			sp := payloads[*runtime.SpokenPayload](h)
			if last := sp[len(sp)-1]; last.TTSSpeed >= 1 || last.TTSSpeed < 0.6 {
				t.Fatalf("tts speed %v", last.TTSSpeed)
			}
		}},
		{name: "pause", commands: []string{"pause"}, accepted: []bool{true}, state: runtime.StatePaused, lastSaid: "pause here"},
		{name: "thinking_aloud", commands: []string{"thinking_aloud"}, accepted: []bool{true}, lastSaid: "Take your time."},
		{name: "help", commands: []string{"help"}, accepted: []bool{true}, lastSaid: "oral exam"},
		{name: "skip allowed", commands: []string{"skip"}, accepted: []bool{true}, state: runtime.StateCompleted, node: "after-skip"},
		{name: "skip refused", edit: func(s string) string { return strings.Replace(s, "skipAllowed: true", "skipAllowed: false", 1) },
			commands: []string{"skip"}, accepted: []bool{false}, lastSaid: "can't skip"},
		{name: "revise_earlier_answer", commands: []string{"revise_earlier_answer"}, accepted: []bool{true}, lastSaid: "Go ahead"},
		{name: "finish confirmed", commands: []string{"finish", ""}, accepted: []bool{true, true}, state: runtime.StateCompleted, lastSaid: "now finished"},
		{name: "finish not confirmed", commands: []string{"finish", ""}, accepted: []bool{true, false}, lastSaid: "carry on"},
		{name: "finish without confirmation", edit: func(s string) string { return strings.Replace(s, "confirmFinish: true", "confirmFinish: false", 1) },
			commands: []string{"finish"}, accepted: []bool{true}, state: runtime.StateCompleted, lastSaid: "now finished"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ex := intoPlan(t, tt.edit)
			for i, c := range tt.commands {
				if c == "" { // the answer to "are you sure?"
					if tt.name == "finish confirmed" {
						h.say("Yes, I'm sure.")
					} else {
						h.say("No, let me continue.")
					}
					continue
				}
				ex.push(cmd(c))
				h.say("(command " + c + ")")
				_ = i
			}
			acks := payloads[*runtime.CommandAcknowledgedPayload](h)
			if len(acks) != len(tt.accepted) {
				t.Fatalf("acks %+v", acks)
			}
			for i, a := range acks {
				if a.Accepted != tt.accepted[i] {
					t.Errorf("ack %d %+v, want accepted %v", i, a, tt.accepted[i])
				}
			}
			s := h.c.Snapshot()
			want := tt.state
			if want == "" {
				want = runtime.StateInProgress
			}
			if s.State != want {
				t.Fatalf("state %s, want %s", s.State, want)
			}
			if tt.node != "" && s.NodeID != tt.node {
				t.Fatalf("node %s, want %s", s.NodeID, tt.node)
			}
			if tt.lastSaid != "" {
				sp := h.spoken()
				found := false
				for _, x := range sp[max(0, len(sp)-3):] {
					found = found || strings.Contains(x, tt.lastSaid)
				}
				if !found {
					t.Fatalf("last spoken %q lack %q", sp[max(0, len(sp)-3):], tt.lastSaid)
				}
			}
			if tt.check != nil {
				tt.check(t, h)
			}
			if o := h.lastObservation(); o.Decision.Trace[1].Rule != "command" || !o.Decision.Trace[1].Fired && tt.commands[len(tt.commands)-1] != "" {
				t.Fatalf("trace %+v", o.Decision.Trace)
			}
			h.checkSeq()
		})
	}
}

func TestAnxietyNeutrality(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.push(runtimetest.Args{AnswerQuality: "partial", AnxietyDetected: true, SpokenText: "Good answer, you're doing great! What else about the servers?"}.String())
	h.say("Sorry, I'm nervous, the servers might fail.")
	g := payloads[*runtime.GuardrailTriggeredPayload](h)
	// The judging words are forbidden anyway (forbidden_action); the anxious candidate then gets
	// neutral procedural support (anxiety_neutrality).
	if len(g) != 2 || g[0].Guardrail != "forbidden_action" || !strings.Contains(g[0].OriginalText, "Good answer") ||
		g[1].Guardrail != "anxiety_neutrality" {
		t.Fatalf("guardrails %+v", g)
	}
	if sp := h.spoken(); sp[len(sp)-1] != "Take your time. Would you like me to repeat the question?" {
		t.Fatalf("said %q", sp[len(sp)-1])
	}
	if r := payloads[*runtime.RecoveryPayload](h); len(r) != 1 || r[0].Kind != runtime.RecoveryCalmSupport {
		t.Fatalf("recovery %+v", r)
	}
}

func TestOutputFilterEvents(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.push(runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, SpokenText: "As your examiner, I note the rubric. What would you test first on the servers?"}.String())
	h.say("We should move the servers.")
	g := payloads[*runtime.GuardrailTriggeredPayload](h)
	if len(g) != 1 || g[0].Guardrail != "persona_break" || g[0].Action != runtime.GuardrailOutputIntercepted || g[0].ReplacementText == "" {
		t.Fatalf("guardrails %+v", g)
	}
	sp := payloads[*runtime.SpokenPayload](h)
	if last := sp[len(sp)-1]; !last.Intercepted || strings.Contains(last.Text, "examiner") {
		t.Fatalf("spoken %+v", last)
	}
	if f := payloads[*runtime.FollowUpIssuedPayload](h); len(f) != 1 || f[0].Count != 1 || f[0].Max != 2 {
		t.Fatalf("follow-ups %+v", f)
	}
}

func TestDiscardedWhenNodeChangesDuringCall(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.replies = append(ex.replies, scriptedReply{args: runtimetest.Args{SpokenText: "Go on."}.String(), during: func() {
		if err := h.c.Control(context.Background(), runtime.ControlAdvance, "proctor"); err != nil {
			t.Error(err)
		}
	}})
	h.say("The plan is fine.")
	if o := h.lastObservation(); o.Decision.Action != runtime.DecisionDiscarded {
		t.Fatalf("decision %+v", o.Decision)
	}
	if s := h.c.Snapshot(); s.NodeID != "after-admin" {
		t.Fatalf("node %s", s.NodeID)
	}
	h.checkSeq()
}

func TestSinkFailureStops(t *testing.T) {
	exam := compileTestExam(t, "basic.yaml", nil)
	sink := &failingSink{after: 5}
	c, err := runtime.NewController(exam, newOffline(t), runtime.WithSink(sink), runtime.WithClock(runtime.NewVirtualClock(t0)))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); !errors.Is(err, runtime.ErrSink) {
		t.Fatalf("start: %v", err)
	}
	if err := c.SubmitTurn(context.Background(), runtime.Turn{Text: "hi"}); !errors.Is(err, runtime.ErrSink) {
		t.Fatalf("turn after sink failure: %v", err)
	}
	if sink.n != 5 {
		t.Fatalf("%d events stored", sink.n)
	}
}

type failingSink struct{ after, n int }

func (s *failingSink) Publish(runtime.Event) error {
	if s.n >= s.after {
		return errors.New("disk full")
	}
	s.n++
	return nil
}

func TestConstructorValidation(t *testing.T) {
	exam := compileTestExam(t, "basic.yaml", nil)
	if _, err := runtime.NewController(nil, newOffline(t)); !errors.Is(err, runtime.ErrNilExam) {
		t.Error(err)
	}
	if _, err := runtime.NewController(exam, nil); !errors.Is(err, runtime.ErrNilExaminer) {
		t.Error(err)
	}
	for _, o := range []runtime.Option{runtime.WithClock(nil), runtime.WithSessionID(""), runtime.WithTurnTimeout(0),
		runtime.WithInputSource("telepathy"), runtime.WithSink(nil), runtime.WithLogger(nil), runtime.WithContextBudget(1, 1)} {
		if _, err := runtime.NewController(exam, newOffline(t), o); !errors.Is(err, runtime.ErrInvalidOption) {
			t.Errorf("option accepted: %v", err)
		}
	}
	bad := *exam
	bad.EntryNode = "nowhere"
	if _, err := runtime.NewController(&bad, newOffline(t)); !errors.Is(err, runtime.ErrInvalidExam) {
		t.Error(err)
	}
	h := newHarness(t, exam, newOffline(t))
	h.start()
	for _, a := range []runtime.AdminInstruction{{Mode: "shout", Text: "x"}, {Mode: runtime.AdminQueued, Text: "  "}} {
		if err := h.c.Admin(h.ctx, a); !errors.Is(err, runtime.ErrInvalidAdmin) {
			t.Errorf("admin %+v: %v", a, err)
		}
	}
	if err := h.c.Control(h.ctx, runtime.ControlAction(42), "x"); !errors.Is(err, runtime.ErrInvalidControl) {
		t.Error(err)
	}
	if err := h.c.Control(h.ctx, runtime.ControlResume, "x"); !errors.Is(err, runtime.ErrInvalidTransition) {
		t.Error(err)
	}
	if err := h.c.SubmitTurn(h.ctx, runtime.Turn{Text: "x", Confidence: 2}); !errors.Is(err, runtime.ErrInvalidTurn) {
		t.Error(err)
	}
	// Control characters alone are no answer: refused before anything is recorded, so they
	// cannot use up a follow-up (they counted as a turn).
	before := len(h.rec.Events())
	for _, text := range []string{"\x00\x1b]0;T\x07", "\u202e\u2066", "\x1b[2J\x1b[H"} {
		if err := h.c.SubmitTurn(h.ctx, runtime.Turn{Text: text, Source: runtime.SourceRoom}); !errors.Is(err, runtime.ErrInvalidTurn) {
			t.Errorf("SubmitTurn(%q): %v", text, err)
		}
	}
	if n := len(h.rec.Events()); n != before {
		t.Errorf("control-only turns emitted %d events", n-before)
	}
	if _, err := runtime.ParseControlAction("jump"); !errors.Is(err, runtime.ErrInvalidControl) {
		t.Error(err)
	}
	for _, a := range []runtime.ControlAction{runtime.ControlPause, runtime.ControlResume, runtime.ControlSkip, runtime.ControlAdvance, runtime.ControlEnd} {
		if p, err := runtime.ParseControlAction(a.String()); err != nil || p != a {
			t.Errorf("round trip %v: %v %v", a, p, err)
		}
	}
	_ = h.c.Close()
	if err := h.c.Tick(h.ctx); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("tick after close: %v", err)
	}
}

func TestStateMachine(t *testing.T) {
	allowed := map[[2]runtime.ExamState]bool{
		{runtime.StateCreated, runtime.StateScaffolding}: true, {runtime.StateCreated, runtime.StateAborted}: true,
		{runtime.StateScaffolding, runtime.StateReady}: true, {runtime.StateScaffolding, runtime.StateAborted}: true,
		{runtime.StateReady, runtime.StateInProgress}: true, {runtime.StateReady, runtime.StateAborted}: true,
		{runtime.StateInProgress, runtime.StatePaused}: true, {runtime.StateInProgress, runtime.StateCompleted}: true,
		{runtime.StateInProgress, runtime.StateAborted}: true, {runtime.StateInProgress, runtime.StateExpired}: true,
		{runtime.StatePaused, runtime.StateInProgress}: true, {runtime.StatePaused, runtime.StateCompleted}: true,
		{runtime.StatePaused, runtime.StateAborted}: true, {runtime.StatePaused, runtime.StateExpired}: true,
	}
	for _, from := range runtime.ExamStates {
		for _, to := range runtime.ExamStates {
			if got := from.CanTransition(to); got != allowed[[2]runtime.ExamState{from, to}] {
				t.Errorf("%s → %s allowed = %v", from, to, got)
			}
		}
		if from.Terminal() && len(from.String()) == 0 {
			t.Error("empty state name")
		}
	}
}

func TestControlEnd(t *testing.T) {
	h, _ := intoPlan(t, nil)
	if err := h.c.Control(h.ctx, runtime.ControlEnd, "proctor"); err != nil {
		t.Fatal(err)
	}
	if s := h.c.Snapshot(); s.State != runtime.StateAborted {
		t.Fatalf("state %s", s.State)
	}
	a := payloads[*runtime.AdminInstructionPayload](h)
	if len(a) != 1 || a[0].Mode != runtime.AdminControl || a[0].Text != "end" || a[0].Sender != "proctor" {
		t.Fatalf("admin record %+v", a)
	}
	if err := h.c.SubmitTurn(h.ctx, runtime.Turn{Text: "hello?"}); !errors.Is(err, runtime.ErrExamOver) {
		t.Fatalf("turn after end: %v", err)
	}
}

// stuckExaminer never answers: it waits for its context, like an LLM endpoint that hangs.
type stuckExaminer struct{}

func (stuckExaminer) Name() string { return "stuck" }
func (stuckExaminer) Observe(ctx context.Context, _ *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestTurnTimeout(t *testing.T) {
	h := newHarness(t, compileTestExam(t, "basic.yaml", nil), stuckExaminer{}, runtime.WithTurnTimeout(20*time.Millisecond))
	h.start()
	h.say("My name is Ada.")
	errs := payloads[*runtime.SystemErrorPayload](h)
	if len(errs) != 1 || errs[0].Code != runtime.CodeExaminerFailed || !strings.Contains(errs[0].Message, "deadline exceeded") {
		t.Fatalf("errors %+v", errs)
	}
	if s := h.c.Snapshot(); s.State != runtime.StateInProgress || s.NodeID != "intro" {
		t.Fatalf("after a timeout %+v", s)
	}
}

// TestSafetyNetEveryCommand: whatever the examiner misses, the rule-based classifier on the
// transcript catches each candidate command and the controller dispatches it as the examiner
// would have (decision step 2), acknowledged with source safety_net.
func TestSafetyNetEveryCommand(t *testing.T) {
	tests := []struct {
		said  string
		cmd   string
		state runtime.ExamState
		node  string
	}{
		{"Sorry, could you repeat the question?", "repeat", runtime.StateInProgress, "plan"},
		{"What do you mean by a data centre?", "clarification", runtime.StateInProgress, "plan"},
		{"Could you rephrase that?", "request_rephrase", runtime.StateInProgress, "plan"},
		{"Please slow down a bit.", "slow_down", runtime.StateInProgress, "plan"},
		{"Can we pause for a moment?", "pause", runtime.StatePaused, "plan"},
		{"Hmm, let me think.", "thinking_aloud", runtime.StateInProgress, "plan"},
		{"Help, what am I supposed to do?", "help", runtime.StateInProgress, "plan"},
		{"Can I skip this one?", "skip", runtime.StateCompleted, "after-skip"},
		{"I'd like to change my answer to the first question.", "revise_earlier_answer", runtime.StateInProgress, "plan"},
		{"I want to finish the exam now.", "finish", runtime.StateInProgress, "plan"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			h, ex := intoPlan(t, nil)
			// The examiner treats the utterance as a (poor) answer and wants to move on.
			ex.push(runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, FollowUpType: "probe", SpokenText: "What would you test first?"}.String())
			h.say(tt.said)
			acks := payloads[*runtime.CommandAcknowledgedPayload](h)
			if len(acks) != 1 || acks[0].Command != tt.cmd || acks[0].Source != runtime.CommandBySafetyNet {
				t.Fatalf("acks %+v, want %s from safety_net", acks, tt.cmd)
			}
			if f := payloads[*runtime.FollowUpIssuedPayload](h); len(f) != 0 {
				t.Fatalf("the examiner's follow-up was issued instead of the command: %+v", f)
			}
			if s := h.c.Snapshot(); s.State != tt.state || s.NodeID != tt.node {
				t.Fatalf("state %s node %s, want %s %s", s.State, s.NodeID, tt.state, tt.node)
			}
			if tr := h.lastObservation().Decision.Trace; !tr[1].Fired || tr[1].Detail != tt.cmd+" safety_net" {
				t.Fatalf("trace %+v", tr)
			}
			h.checkSeq()
		})
	}
}
