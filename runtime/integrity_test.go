package runtime_test

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// Exam-integrity regression tests (issue 18) with the offline examiner and the controller's
// rules; runtime/llm/integrity_test.go runs the LLM side against the test server.

// demoHarness runs the built-in demo exam with the offline examiner and answers the welcome
// question, so the exam stands in the breakfast scenario.
func demoHarness(t *testing.T, edit func(string) string, opts ...runtime.Option) *harness {
	t.Helper()
	h := newHarness(t, runtimetest.DemoExam(t, edit), newOffline(t), opts...)
	h.start()
	h.say("My name is Ada and I study hospitality management.")
	if n := h.c.Snapshot().NodeID; n != "scenario-hotel-breakfast" {
		t.Fatalf("node %s after the welcome answer", n)
	}
	return h
}

func TestOfflineAnswerWithCommandWordsIsAnAnswer(t *testing.T) {
	h := demoHarness(t, nil)
	h.say("To save money we should move on to a cheaper supplier.")
	if acks := payloads[*runtime.CommandAcknowledgedPayload](h); len(acks) != 0 {
		t.Fatalf("the answer was treated as a command: %+v", acks[0])
	}
	if n := h.c.Snapshot().NodeID; n != "scenario-hotel-breakfast" {
		t.Fatalf("node %s: the assessment was skipped", n)
	}
}

func TestOfflineDistressOutranksFinish(t *testing.T) {
	h := demoHarness(t, nil)
	h.say("I can't cope, I want to stop, please.")
	for _, sp := range h.spoken() {
		if strings.Contains(sp, "Are you sure") {
			t.Fatalf("distress got the finish confirmation: %q", sp)
		}
	}
	exits := payloads[*runtime.NodeExitPayload](h)
	if len(exits) < 2 || exits[len(exits)-2].Reason.Transition() != spec.ReasonDistress || exits[len(exits)-2].Next != "wrapup" {
		t.Fatalf("exits %+v, want the distress path", exits)
	}
}

// TestSafetyNetArbitration pins decision step 2 with the scripted examiner: the candidate's
// explicit command wins over the examiner's classification; an answer with command words in it
// is no command; distress outranks every command.
func TestSafetyNetArbitration(t *testing.T) {
	budget := []runtime.Signal{sig("names_risk", "skip the testing is a risk")}
	tests := []struct {
		name    string
		say     string
		obs     string // "" : the examiner makes no tool call
		wantCmd string
	}{
		{"net catches a command the examiner missed", "Can we move on?", runtimetest.Args{AnswerQuality: "unclear", SpokenText: "Go on."}.String(), "skip"},
		{"net covers a failed examiner", "Can we move on?", "", "skip"},
		{"signals win over the net", "Skip the testing is a risk, move on.", runtimetest.Args{Signals: budget, AnswerQuality: "partial", SpokenText: "Why?"}.String(), ""},
		// The candidate's explicit request wins over the examiner's classification of it.
		{"the candidate's command wins over a substantive classification", "Can we move on?", runtimetest.Args{AnswerQuality: "substantive", SpokenText: "Why?"}.String(), "skip"},
		{"repeat wins over a substantive classification", "Could you repeat the question please?", runtimetest.Args{AnswerQuality: "substantive", SpokenText: "Why?"}.String(), "repeat"},
		{"slow down wins over signals", "Please slow down a bit.", runtimetest.Args{Signals: budget, AnswerQuality: "substantive", SpokenText: "Why?"}.String(), "slow_down"},
		{"the candidate's command wins over the examiner's other command", "Could you repeat the question please?", runtimetest.Args{CommandDetected: "clarification", AnswerQuality: "partial", SpokenText: "In other words?"}.String(), "repeat"},
		{"clarify wins over a substantive classification", "What do you mean by that?", runtimetest.Args{AnswerQuality: "substantive", SpokenText: "Why?"}.String(), "clarification"},
		{"pause wins over a substantive classification", "Can we pause for a moment?", runtimetest.Args{AnswerQuality: "substantive", SpokenText: "Why?"}.String(), "pause"},
		{"finish wins over a substantive classification", "I want to finish the exam now.", runtimetest.Args{AnswerQuality: "substantive", SpokenText: "Why?"}.String(), "finish"},
		{"distress wins over the net", "Can we move on?", runtimetest.Args{DistressDetected: true, AnswerQuality: "unclear", SpokenText: "Take your time."}.String(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ex := intoPlan(t, nil)
			if tt.obs == "" {
				ex.mu.Lock()
				ex.replies = append(ex.replies, scriptedReply{})
				ex.mu.Unlock()
			} else {
				ex.push(tt.obs)
			}
			h.say(tt.say)
			acks := payloads[*runtime.CommandAcknowledgedPayload](h)
			got := ""
			if len(acks) > 0 {
				got = acks[0].Command
			}
			if got != tt.wantCmd {
				t.Fatalf("command %q, want %q (trace %+v)", got, tt.wantCmd, h.lastObservation().Decision.Trace)
			}
		})
	}
}

func TestFollowUpUnderLimitBeforeSufficiency(t *testing.T) {
	h, ex := intoPlan(t, nil)
	two := []runtime.Signal{sig("names_risk", "nothing was tested"), sig("proposes_fix", "rehearse the move")}
	ex.push(runtimetest.Args{Signals: two, AnswerQuality: "substantive", NeedsFollowUp: true, FollowUpType: "probe", EvidenceSufficient: true,
		SpokenText: "What would you rehearse first?"}.String())
	h.say("Nothing was tested, so I would rehearse the move.")
	o := h.lastObservation()
	if o.Decision.Action != runtime.DecisionFollowUp || h.c.Snapshot().NodeID != "plan" {
		t.Fatalf("decision %+v", o.Decision)
	}
	// Once the examiner no longer asks, sufficiency moves on.
	ex.push(runtimetest.Args{AnswerQuality: "substantive", EvidenceSufficient: true, SpokenText: "Thank you."}.String())
	h.say("The database first.")
	if n := h.c.Snapshot().NodeID; n != "after-evidence" {
		t.Fatalf("node %s", n)
	}
}

func TestSilenceCheckIns(t *testing.T) {
	edit := func(s string) string {
		return strings.Replace(s, "  confirmFinish: true\n", "  confirmFinish: true\n  silence: {checkInSec: 10, repeatSec: 8, timeoutSec: 6}\n", 1)
	}
	h, _ := intoPlan(t, edit)
	kinds := func() []string {
		var out []string
		for _, r := range payloads[*runtime.RecoveryPayload](h) {
			if strings.HasPrefix(r.Kind.String(), "silence") {
				out = append(out, r.Kind.String())
			}
		}
		return out
	}
	// Silence counts from the end of the examiner's (estimated) speech, 8.4 s in.
	h.wait(4 * time.Second)
	if k := kinds(); len(k) != 0 {
		t.Fatalf("check-in too early: %v", k)
	}
	h.wait(14 * time.Second)
	if k := kinds(); len(k) != 1 || k[0] != runtime.RecoverySilenceCheckIn.String() {
		t.Fatalf("after 20 s: %v", k)
	}
	sp := payloads[*runtime.SpokenPayload](h)
	if last := sp[len(sp)-1]; last.Source != runtime.SpokenSilence || last.Text != spec.DefaultSilencePrompt {
		t.Fatalf("check-in said %+v", last)
	}
	// Speaking starts the silence over.
	h.c.UserActivity(true)
	h.c.UserActivity(false)
	h.wait(9 * time.Second)
	if k := kinds(); len(k) != 1 {
		t.Fatalf("activity did not reset the silence: %v", k)
	}
	h.wait(20 * time.Second) // the check-in again, then the repeat 8 s after it was said
	if k := kinds(); strings.Join(k, ",") != "silence_check_in,silence_check_in,silence_repeat" {
		t.Fatalf("kinds %v", k)
	}
	sp = payloads[*runtime.SpokenPayload](h)
	if last := sp[len(sp)-1]; !strings.Contains(last.Text, "What do you think of this plan?") {
		t.Fatalf("repeat said %q", last.Text)
	}
	h.wait(15 * time.Second)
	if n := h.c.Snapshot().NodeID; n != "after-time" {
		t.Fatalf("node %s, want the timeout path", n)
	}
}

func TestSilenceCheckInsOff(t *testing.T) {
	h, _ := intoPlan(t, func(s string) string {
		return strings.Replace(s, "  confirmFinish: true\n", "  confirmFinish: true\n  silence: {enabled: false}\n", 1)
	})
	h.wait(100 * time.Second)
	for _, r := range payloads[*runtime.RecoveryPayload](h) {
		if strings.HasPrefix(r.Kind.String(), "silence") {
			t.Fatalf("check-in while off: %+v", r)
		}
	}
}

// TestBeatsDirectTheOfflineExaminer: a fired beat is a direction the offline examiner follows
// in its next reply, never words it says: the breakfast scenario's "ask about costs next" beat,
// and the wrap-up beat moved earlier by BOT_WRAPUP_AFTER_SECS.
func TestBeatsDirectTheOfflineExaminer(t *testing.T) {
	wrapupAfter := 5.0
	tests := []struct {
		name  string
		opts  []runtime.Option
		wait  time.Duration
		beats func([]*runtime.BeatFiredPayload) bool
		want  string // in the reply to the next answer
	}{
		// Without a direction the first uncovered target's probe comes first ("another way").
		{name: "costs beat", wait: 152 * time.Second, // the "ask about costs next" beat of the breakfast scenario
			beats: func(b []*runtime.BeatFiredPayload) bool { return len(b) == 2 && b[0].AtSec == 0 && b[1].AtSec == 150 },
			want:  "What would that cost us"},
		{name: "wrap-up moved by env", opts: []runtime.Option{runtime.WithGateOverrides(&runtime.GateOverrides{WrapupAfter: &wrapupAfter})},
			wait: 25 * time.Second, // due at 5 s; the gates wait for the scenario's opening lines
			beats: func(b []*runtime.BeatFiredPayload) bool {
				last := b[len(b)-1]
				return last.Wrapup && last.AtSec == 5
			},
			want: "one last question"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := demoHarness(t, nil, tt.opts...)
			h.wait(tt.wait)
			if beats := payloads[*runtime.BeatFiredPayload](h); len(beats) == 0 || !tt.beats(beats) {
				t.Fatalf("beats %+v", beats)
			}
			h.say("The breakfast buffet is busy.")
			sp := h.spoken()
			if last := sp[len(sp)-1]; !strings.Contains(last, tt.want) {
				t.Fatalf("offline examiner ignored the direction: %q", last)
			}
			for _, s := range sp {
				if strings.Contains(s, "costs next") || strings.Contains(s, "Open neutrally") {
					t.Fatalf("a beat was spoken: %q", s)
				}
			}
		})
	}
}

func TestBeatSummaryAndSpeakGate(t *testing.T) {
	edit := func(s string) string {
		s = strings.Replace(s, "  confirmFinish: true\n", "  confirmFinish: true\n  gates: {speakGate: 2}\n", 1)
		return strings.Replace(s, "    scope: plan\n", "    scope: plan\n    summary: true\n", 1)
	}
	h, ex := intoPlan(t, edit)
	ex.push(runtimetest.Args{AnswerQuality: "partial", SpokenText: "What else?"}.String())
	h.say("The servers are old.")
	// The speak gate passes on the controller's clock between the candidate's turn and the call.
	segs := payloads[*runtime.TranscriptSegmentPayload](h)
	obs := payloads[*runtime.ObservationPayload](h)
	var cand runtime.Event
	for _, ev := range h.rec.Events() {
		if ev.Event == runtime.EventTranscriptSegment && strings.Contains(string(ev.Payload), "The servers are old") {
			cand = ev
		}
	}
	var obsEv runtime.Event
	for _, ev := range h.rec.Events() {
		if ev.Event == runtime.EventObservation {
			obsEv = ev
		}
	}
	if gap := obsEv.Timestamp.Sub(cand.Timestamp); gap != 2*time.Second || len(segs) == 0 || len(obs) == 0 {
		t.Fatalf("speak gate: observation %v after the turn, want 2s", gap)
	}
	h.wait(45 * time.Second)
	ex.push(runtimetest.Args{AnswerQuality: "partial", SpokenText: "Anything else?"}.String())
	h.say("They sit in the basement.")
	req := ex.lastRequest()
	var summary bool
	for _, m := range req.Messages {
		if strings.Contains(m.Content, "Summary of earlier turns") && strings.Contains(m.Content, "The servers are old") {
			summary = true
		}
		if m.Role == "user" && m.Content == "The servers are old." {
			t.Fatalf("history kept verbatim across a summary beat")
		}
	}
	if !summary {
		t.Fatalf("no summary at the beat boundary: %+v", req.Messages)
	}
}

func TestPromoteQueued(t *testing.T) {
	h, ex := intoPlan(t, nil)
	if err := h.c.PromoteQueued(h.ctx); err == nil {
		t.Fatal("promoted nothing")
	}
	if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminQueued, Text: "Tell the candidate to speak up.", Sender: "dr-lee"}); err != nil {
		t.Fatal(err)
	}
	ex.push(runtimetest.Args{SpokenText: "Could you speak up, please?"}.String())
	if err := h.c.PromoteQueued(h.ctx); err != nil {
		t.Fatal(err)
	}
	var st []string
	for _, a := range payloads[*runtime.AdminInstructionPayload](h) {
		st = append(st, a.Mode.String()+":"+a.Status.String())
	}
	if got := strings.Join(st, " "); got != "queued:received queued:promoted immediate:received immediate:applied" {
		t.Fatalf("admin events %s", got)
	}
	if sp := h.spoken(); sp[len(sp)-1] != "Could you speak up, please?" {
		t.Fatalf("said %q", sp[len(sp)-1])
	}
	if h.c.Snapshot().QueuedAdmin != 0 {
		t.Fatal("the promoted instruction is still queued")
	}
}

func TestGateOverridesFromEnv(t *testing.T) {
	env := map[string]string{"BOT_SPEAK_GATE_DELAY_SECS": "0.5", "BOT_BEAT_USER_IDLE_SECS": "3"}
	o, err := runtime.GateOverridesFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil || o.SpeakGate == nil || *o.SpeakGate != 0.5 || o.UserIdle == nil || *o.UserIdle != 3 || o.FirstSpeak != nil {
		t.Fatalf("overrides %+v, %v", o, err)
	}
	for _, bad := range []string{"soon", "-1", "NaN", "Inf"} {
		env["BOT_FIRST_SPEAK_GATE_SECS"] = bad
		if _, err := runtime.GateOverridesFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err == nil ||
			!strings.Contains(err.Error(), "BOT_FIRST_SPEAK_GATE_SECS") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	help := runtime.BotEnvHelp()
	for _, v := range runtime.BotEnvVars {
		if !strings.Contains(help, v.Name) {
			t.Errorf("help lacks %s", v.Name)
		}
	}
}

// TestResumeKeepsDirectionsAndPromotions: a resumed session keeps the standing wrap-up direction
// and does not queue a promoted instruction again.
func TestResumeKeepsDirectionsAndPromotions(t *testing.T) {
	after := 5.0
	gates := runtime.WithGateOverrides(&runtime.GateOverrides{WrapupAfter: &after})
	h := demoHarness(t, nil, gates)
	h.wait(25 * time.Second)
	if err := h.c.Admin(h.ctx, runtime.AdminInstruction{Mode: runtime.AdminQueued, Text: "Tell the candidate to speak up."}); err != nil {
		t.Fatal(err)
	}
	if err := h.c.PromoteQueued(h.ctx); err != nil {
		t.Fatal(err)
	}
	c2, rec := resumeFrom(t, h.c.Exam(), newOffline(t), h.clock, h.rec.Events(), runtime.WithSessionID("test"), gates)
	if n := c2.Snapshot().QueuedAdmin; n != 0 {
		t.Fatalf("%d queued after resume: the promoted instruction came back", n)
	}
	if err := c2.Start(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(2 * time.Second)
	if err := c2.SubmitTurn(h.ctx, runtime.Turn{Text: "The breakfast buffet is busy.", Duration: time.Second}); err != nil {
		t.Fatal(err)
	}
	var last string
	beats := 0
	for _, ev := range rec.Events() {
		p, _ := ev.Decode()
		switch v := p.(type) {
		case *runtime.SpokenPayload:
			last = v.Text
		case *runtime.BeatFiredPayload:
			beats++
		}
	}
	if !strings.Contains(last, "one last question") || beats != 0 {
		t.Fatalf("after resume: said %q, %d beats fired again", last, beats)
	}
}

// TestTypingHoldsTheCheckIn: typing (CandidateActive) counts as activity for the silence
// check-ins but never holds the node's timeout the way speech does.
func TestTypingHoldsTheCheckIn(t *testing.T) {
	h, _ := intoPlan(t, nil)
	for i := 0; i < 30; i++ { // a candidate typing for 30 s
		h.wait(time.Second)
		h.c.CandidateActive()
	}
	for _, r := range payloads[*runtime.RecoveryPayload](h) {
		if strings.HasPrefix(r.Kind.String(), "silence") {
			t.Fatalf("check-in while the candidate typed: %+v", r)
		}
	}
	for i := 0; i < 100; i++ { // still typing when the 120 s budget runs out
		h.wait(time.Second)
		h.c.CandidateActive()
	}
	if n := h.c.Snapshot().NodeID; n != "after-time" {
		t.Fatalf("node %s: typing held the node's timeout", n)
	}
}
