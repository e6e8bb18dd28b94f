package app_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/endpoint"
	"github.com/examtui/examtui/internal/endpoint/endpointtest"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestThreeStageEndpoints: an exam whose LLM, recogniser and voice are three servers, each
// with its own key and model, and a shared OPENAI_* server set as well. The examiner's opening
// line is spoken by the tts server, that speech is recognised by the stt server, and the words
// heard are the candidate's turn, which the llm server's examiner answers. Each server gets only
// its own stage's requests, with its own key (a wrong key is a 401 the server records) and
// model; the shared server gets nothing.
func TestThreeStageEndpoints(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	const heard = "We could run a hybrid buffet with eggs cooked to order."
	args := runtimetest.Args{AnswerQuality: "substantive", SpokenText: "Thank you. What would that cost per guest?"}.String()
	llmSrv := openaitest.New(t, openaitest.WithAPIKey("sk-llm-3a"), openaitest.WithoutAudio(),
		openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour { return openaitest.ToolCall(args) }))
	sttSrv := openaitest.New(t, openaitest.WithAPIKey("sk-stt-3b"),
		openaitest.WithTranscriber(func(*openaitest.TranscriptionRequest) openaitest.Behaviour {
			return openaitest.Transcribed(openaitest.Transcript{Text: heard})
		}))
	ttsSrv := openaitest.New(t, openaitest.WithAPIKey("sk-tts-3c"))
	shared := openaitest.New(t, openaitest.WithAPIKey("sk-shared-3d"))
	endpointtest.Isolate(t, map[string]string{
		"OPENAI_BASE_URL": shared.URL(), "OPENAI_API_KEY": "sk-shared-3d",
		"EXAMTUI_LLM_BASE_URL": llmSrv.URL(), "EXAMTUI_LLM_API_KEY": "sk-llm-3a", "EXAMTUI_LLM_MODEL": "llama3.1:8b",
		"EXAMTUI_STT_BASE_URL": sttSrv.URL(), "EXAMTUI_STT_API_KEY": "sk-stt-3b", "EXAMTUI_STT_MODEL": "Systran/faster-whisper-small",
		"EXAMTUI_TTS_BASE_URL": ttsSrv.URL(), "EXAMTUI_TTS_API_KEY": "sk-tts-3c", "EXAMTUI_TTS_MODEL": "kokoro",
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	log := slog.New(slog.DiscardHandler)

	x := apptest.OpenExam(ctx, t, app.Options{Examiner: app.ExaminerAuto, NoStore: true})
	if x.Examiner != "llama3.1:8b" {
		t.Fatalf("examiner %q, want the llm stage's model", x.Examiner)
	}
	rec, status, err := app.NewRecognizer(app.SpeechAuto, "", "en", log)
	if err != nil || rec == nil {
		t.Fatalf("recogniser: %v (%s)", err, status)
	}
	synth, err := app.NewSynthesizer(app.SpeechAuto, "", "", log)
	if err != nil || synth == nil {
		t.Fatalf("synthesizer: %v", err)
	}
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	clip, err := synth.Synthesize(ctx, "Welcome. How would you restructure breakfast?", audio.SpeakOptions{})
	if err != nil || len(clip.Samples) == 0 {
		t.Fatalf("synthesize: %v (%d samples)", err, len(clip.Samples))
	}
	tr, err := rec.Transcribe(ctx, audio.Utterance{Samples: clip.Samples})
	if err != nil || tr.Text != heard {
		t.Fatalf("transcribe: %q, %v", tr.Text, err)
	}
	if err := x.Controller.SubmitTurn(ctx, runtime.Turn{Text: tr.Text, Confidence: tr.Confidence}); err != nil {
		t.Fatal(err)
	}
	if got := x.Controller.ExaminerName(); got != "llama3.1:8b" {
		t.Errorf("examiner after the turn %q: the LLM turn failed", got)
	}

	check := func(name string, srv *openaitest.Server, path, model string) {
		t.Helper()
		reqs := srv.Requests()
		if len(reqs) == 0 {
			t.Errorf("%s server: no requests", name)
		}
		for _, r := range reqs {
			got := ""
			switch {
			case r.Chat != nil:
				got = r.Chat.Model
			case r.Transcription != nil:
				got = r.Transcription.Model
			case r.Speech != nil:
				got = r.Speech.Model
			}
			if !strings.HasSuffix(r.Path, path) || r.Behaviour == 0 || got != model {
				t.Errorf("%s server: %s %s model %q answered %v; want only %s with its key and model %q", name, r.Method, r.Path, got, r.Behaviour, path, model)
			}
		}
	}
	check("llm", llmSrv, "/chat/completions", "llama3.1:8b")
	check("stt", sttSrv, "/audio/transcriptions", "Systran/faster-whisper-small")
	check("tts", ttsSrv, "/audio/speech", "kokoro")
	if reqs := shared.Requests(); len(reqs) != 0 {
		t.Errorf("the shared OPENAI_* server got %d requests: %s %s", len(reqs), reqs[0].Method, reqs[0].Path)
	}
}

// TestSharedEndpointStillServesAll: today's configuration, OPENAI_BASE_URL and OPENAI_API_KEY
// alone, still gives the LLM, the recogniser and the voice one server.
func TestSharedEndpointStillServesAll(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-old-env"))
	endpointtest.Isolate(t, map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-old-env", "EXAMTUI_MODEL": "qwen2.5"})
	log := slog.New(slog.DiscardHandler)
	ex, err := app.NewExaminer(app.ExaminerAuto, "", log)
	if err != nil || ex.Name() != "qwen2.5" {
		t.Fatalf("examiner %v, %v: want the LLM on the shared endpoint", ex, err)
	}
	for _, st := range endpoint.Stages {
		ep, err := app.StageEndpoint(st)
		if err != nil || !ep.Configured || ep.BaseURL != srv.URL() || ep.APIKey != "sk-old-env" || !ep.Shared {
			t.Errorf("%v: %+v %v", st, ep, err)
		}
	}
	if rec, _, err := app.NewRecognizer(app.SpeechAuto, "", "", log); err != nil || rec == nil {
		t.Errorf("recogniser on the shared endpoint: %v", err)
	}
	synth, err := app.NewSynthesizer(app.SpeechAuto, "", "", log)
	if _, ok := synth.(*audio.OpenAISpeech); err != nil || !ok {
		t.Errorf("voice on the shared endpoint: %T %v", synth, err)
	}
}
