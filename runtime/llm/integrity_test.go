package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// Exam-integrity regression tests (issue 18) with the real go-openai client against the
// OpenAI-compatible test server: each scripted reply is one the audit found handled unfairly.

// llmExam is the demo exam run by the LLM examiner on a virtual clock.
type llmExam struct {
	t     *testing.T
	srv   *openaitest.Server
	c     *runtime.Controller
	got   *events
	clock *runtime.VirtualClock
}

// startLLMExam starts the demo exam (edited by edit) and answers the scaffolding question, so
// the exam stands in the breakfast scenario.
func startLLMExam(t *testing.T, edit func(string) string, opts ...runtime.Option) *llmExam {
	t.Helper()
	exam := runtimetest.DemoExam(t, edit)
	x := &llmExam{t: t, srv: openaitest.New(t), clock: runtime.NewVirtualClock(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))}
	x.c, x.got = startController(t, exam, newExaminer(t, x.srv, fast()...), append([]runtime.Option{runtime.WithClock(x.clock)}, opts...)...)
	x.turn("My name is Ada and I study hospitality management.", openaitest.ToolCall(runtimetest.Args{AnswerQuality: "substantive", SpokenText: "Thank you."}.String()))
	if n := x.c.Snapshot().NodeID; n != "scenario-hotel-breakfast" {
		t.Fatalf("after the scaffolding answer the node is %s", n)
	}
	return x
}

// turn scripts the examiner's reply and submits the candidate's words.
func (x *llmExam) turn(text string, reply openaitest.Behaviour) {
	x.t.Helper()
	x.srv.Enqueue(reply)
	x.clock.Advance(3 * time.Second)
	if err := x.c.SubmitTurn(context.Background(), runtime.Turn{Text: text, Confidence: 0.95, Source: runtime.SourceMic}); err != nil {
		x.t.Fatalf("SubmitTurn: %v", err)
	}
}

func eventsOf[P runtime.Payload](x *llmExam) []P {
	x.got.mu.Lock()
	evs := append([]runtime.Event(nil), x.got.evs...)
	x.got.mu.Unlock()
	return runtimetest.Payloads[P](x.t, evs)
}

// lastSpoken is everything the examiner said since the last candidate segment.
func (x *llmExam) lastSpoken() string {
	x.got.mu.Lock()
	defer x.got.mu.Unlock()
	var said []string
	for i := len(x.got.evs) - 1; i >= 0; i-- {
		ev := x.got.evs[i]
		p, _ := ev.Decode()
		if seg, ok := p.(*runtime.TranscriptSegmentPayload); ok && seg.Speaker == runtime.SpeakerCandidate {
			break
		}
		if sp, ok := p.(*runtime.SpokenPayload); ok {
			said = append([]string{sp.Text}, said...)
		}
	}
	return strings.Join(said, " ")
}

func TestLLMSafetyNetNeverOverridesAnObservedAnswer(t *testing.T) {
	x := startLLMExam(t, nil)
	x.turn("To save money we should move on to a cheaper supplier.", openaitest.ToolCall(runtimetest.Args{
		Signals:       []runtime.Signal{{SignalType: "considers_budget", Excerpt: "To save money we should move on to a cheaper supplier", Confidence: 0.8}},
		AnswerQuality: "substantive", NeedsFollowUp: true, FollowUpType: "probe",
		SpokenText: "Who are the guests having breakfast at that time?"}.String()))
	if acks := eventsOf[*runtime.CommandAcknowledgedPayload](x); len(acks) != 0 {
		t.Fatalf("the answer was treated as a command: %+v", acks[0])
	}
	ev := eventsOf[*runtime.EvidenceUpdatePayload](x)
	if len(ev) != 1 || ev[0].SignalType != "considers_budget" {
		t.Fatalf("evidence %+v, want considers_budget kept", ev)
	}
	if n := x.c.Snapshot().NodeID; n != "scenario-hotel-breakfast" {
		t.Fatalf("node %s: the assessment was skipped", n)
	}
	if !strings.Contains(x.lastSpoken(), "Who are the guests") {
		t.Fatalf("said %q", x.lastSpoken())
	}
}

func TestLLMCommandKeepsEvidenceOfTheSameTurn(t *testing.T) {
	x := startLLMExam(t, nil)
	x.turn("We could run a hybrid buffet. Sorry, could you repeat the question?", openaitest.ToolCall(runtimetest.Args{
		Signals:         []runtime.Signal{{SignalType: "proposes_options", Excerpt: "We could run a hybrid buffet", Confidence: 0.8}},
		CommandDetected: "repeat", SpokenText: "Of course."}.String()))
	acks := eventsOf[*runtime.CommandAcknowledgedPayload](x)
	if len(acks) != 1 || acks[0].Command != "repeat" {
		t.Fatalf("commands %+v", acks)
	}
	if ev := eventsOf[*runtime.EvidenceUpdatePayload](x); len(ev) != 1 || ev[0].SignalType != "proposes_options" {
		t.Fatalf("evidence of the command turn discarded: %+v", ev)
	}
}

func TestLLMDistressOutranksFinish(t *testing.T) {
	for _, cmd := range []string{"finish", ""} { // reported by the model, or only by the safety net
		t.Run("command="+cmd, func(t *testing.T) {
			x := startLLMExam(t, nil)
			x.turn("I can't cope, I want to stop, please.", openaitest.ToolCall(runtimetest.Args{
				CommandDetected: runtime.Command(cmd), DistressDetected: true, AnxietyDetected: true, AnswerQuality: "unclear",
				SpokenText: "Are you sure you want to finish the exam now?"}.String()))
			if strings.Contains(x.lastSpoken(), "Are you sure") {
				t.Fatalf("distress got the finish confirmation: %q", x.lastSpoken())
			}
			if acks := eventsOf[*runtime.CommandAcknowledgedPayload](x); len(acks) != 0 {
				t.Fatalf("commands %+v", acks)
			}
			exits := eventsOf[*runtime.NodeExitPayload](x)
			if last := exits[len(exits)-2]; last.Reason.Transition() != spec.ReasonDistress || last.Next != "wrapup" {
				t.Fatalf("exit %+v, want the distress path to wrapup", last)
			}
		})
	}
}

func TestLLMFollowUpUnderLimitBeforeSufficiency(t *testing.T) {
	x := startLLMExam(t, nil)
	x.turn("We could run a hybrid buffet for business travellers.", openaitest.ToolCall(runtimetest.Args{
		Signals: []runtime.Signal{
			{SignalType: "proposes_options", Excerpt: "We could run a hybrid buffet", Confidence: 0.8},
			{SignalType: "analyses_clientele", Excerpt: "for business travellers", Confidence: 0.8}},
		AnswerQuality: "substantive", NeedsFollowUp: true, FollowUpType: "probe", EvidenceSufficient: true,
		SpokenText: "What would that cost us?"}.String()))
	if n := x.c.Snapshot().NodeID; n != "scenario-hotel-breakfast" {
		t.Fatalf("node %s: sufficiency came before a follow-up under the limit", n)
	}
	if f := eventsOf[*runtime.FollowUpIssuedPayload](x); len(f) != 1 {
		t.Fatalf("follow-ups %+v", f)
	}
}

func TestLLMToldWhereItStands(t *testing.T) {
	x := startLLMExam(t, nil)
	x.turn("We could run a hybrid buffet.", openaitest.ToolCall(runtimetest.Args{SpokenText: "What would that cost us?", NeedsFollowUp: true, FollowUpType: "probe"}.String()))
	x.turn("It would cost a little more.", openaitest.ToolCall(runtimetest.Args{SpokenText: "Who are the guests?"}.String()))
	reqs := x.srv.ChatRequests()
	status := func(r *openaitest.ChatRequest) string {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "STATUS (for you only") {
				return m.Content
			}
		}
		return ""
	}
	first, second := status(reqs[1]), status(reqs[2])
	for _, want := range []string{"follow-ups used 0 of 3 (3 remaining)", "clarifications left 2 of 2", "time left on this question", "time left in the exam", "evidence gathered 0 of 2", "do not greet"} {
		if !strings.Contains(first, want) {
			t.Errorf("status %q lacks %q", first, want)
		}
	}
	if !strings.Contains(second, "follow-ups used 1 of 3 (2 remaining)") {
		t.Errorf("second status %q does not count the follow-up", second)
	}
	if strings.Contains(first, "Opening direction") || !strings.Contains(status(reqs[0]), "Opening direction: Open neutrally") {
		t.Errorf("the opening beat is the first call's direction only: %q / %q", status(reqs[0]), first)
	}
}

func TestLLMForbiddenActionsNeverReachTheCandidate(t *testing.T) {
	tests := []struct {
		name, spoken, guardrail string
		never                   []string
	}{
		{"hint and answer", "Here is a hint: the answer is a second buffet line. What would you do about the queues?", "hint_refusal",
			[]string{"hint", "answer is", "second buffet line"}},
		{"praise", "That's correct, excellent answer, well done!", "forbidden_action", []string{"correct", "excellent", "well done"}},
		{"praise before a question", "Good point, but what would the buffet cost per guest?", "forbidden_action", []string{"Good point"}},
		{"equity", "Your accent makes this hard to follow, so let me make it easier for you. What would you change at the buffet?", "equity",
			[]string{"accent", "easier"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := startLLMExam(t, nil)
			x.turn("I would add a second buffet line at peak times.", openaitest.ToolCall(runtimetest.Args{AnswerQuality: "partial", SpokenText: tt.spoken}.String()))
			said := x.lastSpoken()
			for _, w := range tt.never {
				if strings.Contains(strings.ToLower(said), strings.ToLower(w)) {
					t.Fatalf("said %q: contains %q", said, w)
				}
			}
			if strings.Contains(tt.spoken, "?") && !strings.Contains(said, "?") {
				t.Fatalf("said %q: the candidate was left without a question", said)
			}
			var names []string
			for _, g := range eventsOf[*runtime.GuardrailTriggeredPayload](x) {
				names = append(names, g.Guardrail)
			}
			if !strings.Contains(strings.Join(names, ","), tt.guardrail) {
				t.Fatalf("guardrails %v, want %s", names, tt.guardrail)
			}
		})
	}
}

func TestLLMFiltersKeepLegitimateSpeech(t *testing.T) {
	long := strings.Repeat("The breakfast team reported long queues at the buffet and falling revenue this year. ", 6) +
		"What would you change first?"
	tests := []struct {
		name, spoken string
		edit         func(string) string
		stream       bool
		check        func(t *testing.T, x *llmExam, said string)
	}{
		{name: "neutral probe is on topic", spoken: "Can you explain your reasoning in more detail?",
			check: func(t *testing.T, x *llmExam, said string) {
				if said != "Can you explain your reasoning in more detail?" || len(eventsOf[*runtime.GuardrailTriggeredPayload](x)) != 0 {
					t.Fatalf("said %q, guardrails %d", said, len(eventsOf[*runtime.GuardrailTriggeredPayload](x)))
				}
			}},
		{name: "procedural line is on topic", spoken: "Let's stop here for a moment. Are you ready to continue?",
			check: func(t *testing.T, x *llmExam, said string) {
				if len(eventsOf[*runtime.GuardrailTriggeredPayload](x)) != 0 {
					t.Fatalf("flagged: %+v", eventsOf[*runtime.GuardrailTriggeredPayload](x)[0])
				}
			}},
		{name: "summarize keeps the closing question", spoken: long,
			check: func(t *testing.T, x *llmExam, said string) {
				if !strings.HasSuffix(said, "What would you change first?") || utf8.RuneCountInString(said) > 500 {
					t.Fatalf("said (%d chars) %q", utf8.RuneCountInString(said), said)
				}
			}},
		{name: "summarize holds its limit and the question while streaming", spoken: long, stream: true,
			check: func(t *testing.T, x *llmExam, said string) {
				if !strings.HasSuffix(said, "What would you change first?") || utf8.RuneCountInString(said) > 500 {
					t.Fatalf("said (%d chars) %q", utf8.RuneCountInString(said), said)
				}
				streamed := false
				for _, sp := range eventsOf[*runtime.SpokenPayload](x) {
					streamed = streamed || sp.Streamed
				}
				if !streamed {
					t.Fatal("nothing was spoken while streaming: the case does not test streaming")
				}
			}},
		{name: "split holds its limit while streaming", stream: true,
			spoken: "Thank you. We need to think about the restaurant, " + strings.Repeat("the buffet queue and the kitchen and the menu, ", 8) + "and the guests. What would you change first?",
			edit: func(s string) string {
				return s + "\noutputValidation:\n  filters:\n    - {name: length, action: split, maxChars: 200}\n"
			},
			check: func(t *testing.T, x *llmExam, said string) {
				for _, sp := range eventsOf[*runtime.SpokenPayload](x) {
					if n := utf8.RuneCountInString(sp.Text); n > 200 {
						t.Fatalf("spoke a %d-character part (maxChars 200): %q", n, sp.Text)
					}
				}
				if !strings.HasSuffix(said, "What would you change first?") {
					t.Fatalf("said %q", said)
				}
			}},
		{name: "leading question keeps its referent", spoken: "Wouldn't you say a buffet is cheaper than table service?",
			check: func(t *testing.T, x *llmExam, said string) {
				if said != "What is your view on whether a buffet is cheaper than table service?" {
					t.Fatalf("said %q", said)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := startLLMExam(t, tt.edit)
			var opts []openaitest.ReplyOption
			if tt.stream {
				opts = append(opts, openaitest.Streamed(16, 0))
			}
			n := len(eventsOf[*runtime.GuardrailTriggeredPayload](x))
			if n != 0 {
				t.Fatalf("guardrails before the turn: %d", n)
			}
			x.turn("I would add a second buffet line.", openaitest.ToolCall(runtimetest.Args{AnswerQuality: "partial", SpokenText: tt.spoken}.String(), opts...))
			tt.check(t, x, x.lastSpoken())
		})
	}
}

func TestLLMBeatsDirectTheExaminer(t *testing.T) {
	x := startLLMExam(t, nil)
	// 150 s into the breakfast scenario the beat "ask about costs next" falls due.
	for i := 0; i < 160; i++ {
		x.clock.Advance(time.Second)
		if err := x.c.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	beats := eventsOf[*runtime.BeatFiredPayload](x)
	if len(beats) != 2 || beats[1].Scope != "scenario-hotel-breakfast" {
		t.Fatalf("beats %+v", beats)
	}
	for _, sp := range eventsOf[*runtime.SpokenPayload](x) {
		if strings.Contains(sp.Text, "costs next") || sp.Source == "beat" {
			t.Fatalf("a beat was read aloud: %q", sp.Text)
		}
	}
	x.turn("We could run a hybrid buffet.", openaitest.ToolCall(runtimetest.Args{SpokenText: "What would that cost us?"}.String()))
	reqs := x.srv.ChatRequests()
	found := false
	for _, m := range reqs[len(reqs)-1].Messages {
		found = found || m.Role != "assistant" && strings.Contains(m.Content, "ask about costs next") && strings.Contains(m.Content, "never read it aloud")
	}
	if !found {
		t.Fatal("the beat is not in the model's context as a direction")
	}
}

func TestLLMScaffoldingReachesTheLedger(t *testing.T) {
	x := startLLMExam(t, nil)
	two, yes := 2, true
	x.turn("We could run a hybrid buffet.", openaitest.ToolCall(runtimetest.Args{
		Signals: []runtime.Signal{{SignalType: "proposes_options", Excerpt: "We could run a hybrid buffet", Confidence: 0.8,
			ScaffoldingIntensity: &two, ScaffoldingEffective: &yes}},
		AnswerQuality: "substantive", SpokenText: "Who are the guests?"}.String()))
	ev := eventsOf[*runtime.EvidenceUpdatePayload](x)
	if len(ev) != 1 || ev[0].ScaffoldingIntensity == nil || *ev[0].ScaffoldingIntensity != 2 || ev[0].ScaffoldingEffective == nil || !*ev[0].ScaffoldingEffective {
		t.Fatalf("evidence_update %+v", ev)
	}
	entries := x.c.Snapshot().Ledger
	if len(entries) != 1 || entries[0].ScaffoldingIntensity == nil || *entries[0].ScaffoldingIntensity != 2 {
		t.Fatalf("ledger %+v", entries)
	}
}
