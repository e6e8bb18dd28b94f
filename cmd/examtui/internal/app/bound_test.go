package app_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/endpoint/endpointtest"
	"github.com/examtui/examtui/internal/httpbound/boundtest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// Every stage's client as the exam builds it (the examiner LLM, the recogniser, the voice)
// against an endless body, a 200 MB body, a trickle and a hang: each call fails within the
// stage's timeout and a second, with the heap under 100 MB above idle. Before the bounded
// reader the speech providers read any reply whole.
func TestStagesBoundedReply(t *testing.T) {
	const timeout = 2 * time.Second
	log := slog.New(slog.DiscardHandler)
	t.Run("stt", func(t *testing.T) {
		boundtest.Check(t, timeout, func(base string) error {
			endpointtest.Isolate(t, map[string]string{"EXAMTUI_STT_BASE_URL": base, "EXAMTUI_STT_TIMEOUT": timeout.String()})
			rec, _, err := app.NewRecognizer(app.SpeechOpenAI, "", "en", log)
			if err != nil {
				t.Fatal(err)
			}
			_, err = rec.Transcribe(context.Background(), audio.Utterance{Samples: make([]int16, audio.SampleRate/2)})
			return err
		})
	})
	t.Run("tts", func(t *testing.T) {
		boundtest.Check(t, timeout, func(base string) error {
			endpointtest.Isolate(t, map[string]string{"EXAMTUI_TTS_BASE_URL": base, "EXAMTUI_TTS_TIMEOUT": timeout.String()})
			s, err := app.NewSynthesizer(app.SpeechOpenAI, "", "", log)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Synthesize(context.Background(), "Hello.", audio.SpeakOptions{})
			return err
		})
	})
	t.Run("llm", func(t *testing.T) {
		boundtest.Check(t, timeout, func(base string) error {
			endpointtest.Isolate(t, map[string]string{"EXAMTUI_LLM_BASE_URL": base, "EXAMTUI_LLM_TIMEOUT": timeout.String()})
			ex, _, err := app.BuildExaminer(app.ExaminerSetup{Kind: app.ExaminerLLM, Model: "m"}, log)
			if err != nil {
				t.Fatal(err)
			}
			n := &spec.CompiledNode{NodeID: "n", Kind: spec.KindAssessment, LLM: spec.NodeLLM{
				RoleMessage: "You are the examiner.", Functions: []spec.FunctionDef{spec.ReportObservationTool()}}}
			_, err = ex.Observe(context.Background(), &runtime.ExaminerRequest{Node: n, Messages: []spec.Message{
				{Role: "system", Content: "You are the examiner."}, {Role: "user", Content: "An answer."}}})
			return err
		})
	})
}
