package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime/headless"
)

// sphinxTranscriber is an OpenAI-compatible transcription endpoint that really listens: it
// decodes the uploaded WAV and recognises it with pocketsphinx on the rehearsal's phrases,
// answering verbose_json with per-word segments.
func sphinxTranscriber(t *testing.T) (openaitest.Option, func() []int) {
	t.Helper()
	sp, err := audio.NewSphinx(apptest.Rehearsal(t).Said())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sp.Close() })
	var mu sync.Mutex
	var uploads []int // samples per upload
	return openaitest.WithTranscriber(func(req *openaitest.TranscriptionRequest) openaitest.Behaviour {
			clip, err := audio.ReadWAV(bytes.NewReader(req.File))
			if err != nil || clip.Rate != audio.SampleRate || req.ResponseFormat != "verbose_json" {
				return openaitest.Status(400)
			}
			mu.Lock()
			uploads = append(uploads, len(clip.Samples))
			mu.Unlock()
			tr, err := sp.Transcribe(context.Background(), audio.Utterance{Samples: clip.Samples})
			if err != nil {
				return openaitest.Status(500)
			}
			out := openaitest.Transcript{Text: tr.Text, Duration: clip.Duration().Seconds()}
			for _, s := range tr.Segments {
				// a confident recogniser: exp(-0.05) × (1 − 0.01) ≈ 0.94
				out.Segments = append(out.Segments, openaitest.Segment{Start: float64(s.StartMs) / 1000, End: float64(s.EndMs) / 1000,
					Text: s.Text, AvgLogprob: -0.05, NoSpeechProb: 0.01})
			}
			return openaitest.Transcribed(out)
		}), func() []int {
			mu.Lock()
			defer mu.Unlock()
			return append([]int(nil), uploads...)
		}
}

func TestTestCommandAudio(t *testing.T) {
	heard := []string{"hello i'm priya and i'm on the hospitalit…", "sorry could you repeat the question",
		"we could open a second buffet line or ano…", "most guests at that time are business tra…"}
	t.Run("offline pocketsphinx", func(t *testing.T) {
		testutil.SkipIfShort(t, "espeak-ng and pocketsphinx")
		t.Setenv("OPENAI_BASE_URL", "")
		t.Setenv("OPENAI_API_KEY", "")
		out, errOut, err := runCmd(t, "", "test", "--no-store", "--audio", "hotel-rehearsal.yaml")
		if code := exitCode(err); code != 0 {
			t.Fatalf("exit %d (%v)\n%s\n%s", code, err, out, errOut)
		}
		for _, want := range append([]string{"PASS hotel-rehearsal.yaml", "commands:   repeat 1",
			"visited:    welcome → scenario-hotel-breakfast → scenario-staff-rota → wrapup"}, heard...) {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("openai-compatible endpoint", func(t *testing.T) {
		testutil.SkipIfShort(t, "espeak-ng and pocketsphinx")
		said := apptest.Rehearsal(t).Said()
		tr, uploads := sphinxTranscriber(t)
		srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), tr)
		t.Setenv("OPENAI_BASE_URL", srv.URL())
		t.Setenv("OPENAI_API_KEY", "sk-test")
		out, errOut, err := runCmd(t, "", "test", "--no-store", "--audio", "--json", "--noise-floor", "-45", "hotel-rehearsal.yaml")
		if code := exitCode(err); code != 0 {
			t.Fatalf("exit %d (%v)\n%s\n%s", code, err, out, errOut)
		}
		var results []struct {
			Passed bool `json:"passed"`
			Turns  []struct {
				Said      string  `json:"said"`
				LatencyMs float64 `json:"latencyMs"`
			} `json:"turns"`
		}
		if err := json.Unmarshal([]byte(out), &results); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(results) != 1 || !results[0].Passed || len(results[0].Turns) != len(said) {
			t.Fatalf("results %s", out)
		}
		for i, turn := range results[0].Turns {
			if want := audio.NormalizeForGrammar(said[i]); turn.Said != want {
				t.Errorf("turn %d heard %q, want %q", i+1, turn.Said, want)
			}
			if turn.LatencyMs < 500 { // the endpointing delay alone is 500 ms
				t.Errorf("turn %d latency %.1f ms: the audio stages are missing", i+1, turn.LatencyMs)
			}
		}
		up := uploads()
		if len(up) != len(said) {
			t.Fatalf("%d uploads, want one per turn", len(up))
		}
		for i, n := range up {
			if n < audio.SampleRate { // every turn is more than a second of speech
				t.Errorf("upload %d holds %d samples", i+1, n)
			}
		}
	})
	t.Run("bad flags", func(t *testing.T) {
		for _, args := range [][]string{
			{"test", "--no-store", "--audio", "--audio-stt", "vosk", "hotel-rehearsal.yaml"},
			{"test", "--no-store", "--audio", "--noise-floor", "3", "hotel-rehearsal.yaml"},
			{"test", "--no-store", "--audio", "--min-endpointing-delay", "5s", "--max-endpointing-delay", "1s", "hotel-rehearsal.yaml"},
		} {
			if _, _, err := runCmd(t, "", args...); exitCode(err) != 2 {
				t.Errorf("%v: exit %d (%v), want 2", args, exitCode(err), err)
			}
		}
	})
}

// TestTestCommandAudioFrench: the French oral spoken by espeak-ng's French voice through VAD,
// endpointing and the OpenAI-compatible recogniser, which is asked for French (the request's
// language) and answers French transcripts: French commands are honoured and the exam
// completes. Without an OpenAI-compatible recogniser, pocketsphinx is refused with the way out.
func TestTestCommandAudioFrench(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	script, err := headless.LoadScriptFS(examples.FS, "oral-fr-b2-script.yaml")
	if err != nil {
		t.Fatal(err)
	}
	said := script.Said()
	var mu sync.Mutex
	var langs []string
	next := 0
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), openaitest.WithTranscriber(func(req *openaitest.TranscriptionRequest) openaitest.Behaviour {
		clip, err := audio.ReadWAV(bytes.NewReader(req.File))
		if err != nil || len(clip.Samples) < audio.SampleRate/2 {
			return openaitest.Status(400) // not half a second of speech
		}
		mu.Lock()
		defer mu.Unlock()
		langs = append(langs, req.Language)
		if req.Language != "fr" || next >= len(said) {
			return openaitest.Status(400)
		}
		next++
		return openaitest.Transcribed(openaitest.Transcript{Text: said[next-1], Language: "french"})
	}))
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
	out, errOut, err := runCmd(t, "", "test", "--no-store", "--audio", "oral-fr-b2-script.yaml")
	if code := exitCode(err); code != 0 {
		t.Fatalf("exit %d (%v)\n%s\n%s", code, err, out, errOut)
	}
	for _, want := range []string{"PASS oral-fr-b2-script.yaml", "commands:   clarification 1, repeat 1, slow_down 1, thinking_aloud 1",
		"visited:    accueil → teletravail → semaine-quatre-jours → fin"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	mu.Lock()
	if len(langs) != len(said) {
		t.Errorf("%d recognitions (languages %q), want one per turn (%d)", len(langs), langs, len(said))
	}
	mu.Unlock()

	t.Run("pocketsphinx refused", func(t *testing.T) {
		t.Setenv("OPENAI_BASE_URL", "")
		t.Setenv("OPENAI_API_KEY", "")
		out, errOut, err := runCmd(t, "", "test", "--no-store", "--audio", "oral-fr-b2-script.yaml")
		if exitCode(err) == 0 || !strings.Contains(out+errOut, "pocketsphinx recognises English only") ||
			!strings.Contains(out+errOut, "--audio-stt openai") {
			t.Fatalf("exit %d\n%s\n%s", exitCode(err), out, errOut)
		}
	})
}
