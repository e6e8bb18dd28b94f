package runtime_test

import (
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

func TestStreamingHandsOnSentences(t *testing.T) {
	for _, chunk := range []int{1, 7, 64} {
		h, ex := intoPlan(t, nil)
		ex.stream = chunk
		ex.push(runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, FollowUpType: "probe",
			SpokenText: "That is one view of the weekend. What could go wrong with the servers? Take your time."}.String())
		h.say("The plan looks fine to me.")
		var parts []*runtime.SpokenPayload
		obsSeq, firstPartSeq := int64(0), int64(0)
		for _, ev := range h.rec.Events() {
			p, _ := ev.Decode()
			switch p := p.(type) {
			case *runtime.SpokenPayload:
				if p.Source == runtime.SpokenExaminer {
					parts = append(parts, p)
					if firstPartSeq == 0 {
						firstPartSeq = ev.Seq
					}
				}
			case *runtime.ObservationPayload:
				obsSeq = ev.Seq
			}
		}
		// The closing quote arrives before the call returns, so every sentence is handed on early.
		if len(parts) != 3 || !parts[0].Streamed || !parts[1].Streamed || !parts[2].Streamed {
			t.Fatalf("chunk %d: parts %+v", chunk, parts)
		}
		if parts[0].Text != "That is one view of the weekend." || parts[1].Part != 1 || parts[2].Part != 2 || parts[2].Text != "Take your time." {
			t.Fatalf("chunk %d: parts %+v", chunk, parts)
		}
		if firstPartSeq > obsSeq {
			t.Fatalf("chunk %d: first sentence (seq %d) not spoken before the call completed (observation seq %d)", chunk, firstPartSeq, obsSeq)
		}
		if s := h.c.Snapshot(); s.FollowUps != 1 || s.LastQuestion != "What could go wrong with the servers?" {
			t.Fatalf("chunk %d: snapshot %+v", chunk, s)
		}
	}
}

func TestStreamingHeldBack(t *testing.T) {
	tests := []struct {
		name string
		args string
	}{
		{"command", runtimetest.Args{CommandDetected: "repeat", SpokenText: "Sure. Here it is again. What do you think?"}.String()},
		{"transition", runtimetest.Args{Signals: []runtime.Signal{sig("names_risk", "risky"), sig("proposes_fix", "test first")}, AnswerQuality: "substantive",
			EvidenceSufficient: true, SpokenText: "Thank you. Let's move on. Next topic."}.String()},
		{"spokenText first", `{"spokenText":"Hello there. How are you? Fine.","signals":[],"answerQuality":"partial","needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false}`},
		{"filtered sentence", runtimetest.Args{SpokenText: "As your examiner I must say this. What else about the servers? Go on."}.String()},
		{"anxiety", runtimetest.Args{AnxietyDetected: true, SpokenText: "Well done. Really well done. What else?"}.String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ex := intoPlan(t, nil)
			ex.stream = 5
			ex.push(tt.args)
			h.say("Risky, so test first.")
			for _, p := range payloads[*runtime.SpokenPayload](h) {
				if p.Streamed {
					t.Fatalf("streamed %+v", p)
				}
			}
		})
	}
}

func TestOfflineStreaming(t *testing.T) {
	ex, err := offlineStreaming(9)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, compileTestExam(t, "basic.yaml", nil), ex)
	h.start()
	h.say("My name is Ada and I study systems.")
	h.say("The weekend is a risk because nothing was tested.")
	streamed := 0
	for _, p := range payloads[*runtime.SpokenPayload](h) {
		if p.Streamed {
			streamed++
		}
	}
	if streamed == 0 {
		t.Fatal("the offline examiner's streamed reply was not handed on early")
	}
}

func TestStreamingStopsAtAFilteredSentence(t *testing.T) {
	h, ex := intoPlan(t, nil)
	ex.stream = 4
	ex.push(runtimetest.Args{AnswerQuality: "partial", SpokenText: "That is one view of the weekend. As your examiner I must note this. What could go wrong with the servers?"}.String())
	h.say("The plan looks fine to me.")
	var parts []*runtime.SpokenPayload
	for _, p := range payloads[*runtime.SpokenPayload](h) {
		if p.Source == runtime.SpokenExaminer {
			parts = append(parts, p)
		}
	}
	if len(parts) != 2 || !parts[0].Streamed || parts[0].Text != "That is one view of the weekend." ||
		parts[1].Streamed || parts[1].Part != 1 || parts[1].Text != "What could go wrong with the servers?" || !parts[1].Intercepted {
		for _, p := range parts {
			t.Logf("%+v", p)
		}
		t.Fatal("unexpected parts")
	}
	if g := payloads[*runtime.GuardrailTriggeredPayload](h); len(g) != 1 || g[0].Guardrail != "persona_break" {
		t.Fatalf("guardrails %+v", g)
	}
}
