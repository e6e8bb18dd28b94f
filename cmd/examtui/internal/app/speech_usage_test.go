package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/internal/endpoint/endpointtest"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
	"github.com/examtui/examtui/sessions"
)

// TestSpokenExamSpeechUsage answers the demo exam by voice through the microphone path, with
// the real OpenAI-compatible recogniser and voice (go-openai) against two test servers, in each
// store engine. The recorded speech usage must be what those servers received: sttSeconds the
// audio of every transcription request, ttsCharacters the text of every speech request; the
// cost is priced from a config file's speech prices, and the figures show in sessions list
// (--json), sessions show and the control room, whose cost alert fires over the budget.
func TestSpokenExamSpeechUsage(t *testing.T) {
	testutil.SkipIfShort(t, "PortAudio and espeak-ng")
	pgtest.EachEngine(t, testSpokenExamSpeechUsage)
}

func testSpokenExamSpeechUsage(t *testing.T, target string) {
	voiceNullALSA(t)
	ctx := context.Background()
	said := apptest.Rehearsal(t).Said()
	var mu sync.Mutex
	next := 0
	sttSrv := openaitest.New(t, openaitest.WithAPIKey("sk-stt-u"),
		openaitest.WithTranscriber(func(*openaitest.TranscriptionRequest) openaitest.Behaviour {
			mu.Lock()
			defer mu.Unlock()
			text := "I am not sure."
			if next < len(said) {
				text = said[next]
			}
			next++
			return openaitest.Transcribed(openaitest.Transcript{Text: text})
		}))
	ttsSrv := openaitest.New(t, openaitest.WithAPIKey("sk-tts-u"))
	const sttModel, ttsModel = "Systran/faster-whisper-small", "kokoro"
	endpointtest.Isolate(t, map[string]string{
		"EXAMTUI_STT_BASE_URL": sttSrv.URL(), "EXAMTUI_STT_API_KEY": "sk-stt-u", "EXAMTUI_STT_MODEL": sttModel,
		"EXAMTUI_TTS_BASE_URL": ttsSrv.URL(), "EXAMTUI_TTS_API_KEY": "sk-tts-u", "EXAMTUI_TTS_MODEL": ttsModel,
	})
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf("prices:\n  %q: {perMinute: 0.006}\n  %s: {perMChars: 15}\nbudget: {costPerExam: 0.0001}\n",
		sttModel, ttsModel)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(config.EnvConfigFile, cfgPath)
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}

	log := voiceTestLogger(t)
	x := apptest.OpenExam(ctx, t, app.Options{SpecPath: "demo", Examiner: app.ExaminerOffline, Store: target})
	rec, status, err := app.NewRecognizer(app.SpeechAuto, "", "en", log)
	if err != nil || rec == nil {
		t.Fatalf("recogniser: %v (%s)", err, status)
	}
	synth, err := app.NewSynthesizer(app.SpeechAuto, "", "", log)
	if err != nil || synth == nil {
		t.Fatalf("voice: %v", err)
	}
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	player, err := audio.OpenPlayer()
	if err != nil {
		t.Fatal(err)
	}
	src := newPushSource()
	v, err := app.StartVoice(ctx, x, app.VoiceParts{Source: src, Recognizer: rec, Synthesizer: synth, Sink: player},
		app.WithVoiceSpeed(2), app.WithVoiceLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var evMu sync.Mutex
	counts := map[runtime.EventType]int{}
	x.Subscribe(runtime.SubscriberFunc(func(ev runtime.Event) {
		evMu.Lock()
		counts[ev.Event]++
		evMu.Unlock()
	}))
	count := func(typ runtime.EventType) int {
		evMu.Lock()
		defer evMu.Unlock()
		return counts[typ]
	}
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	spoken := 0
	quiet := func() {
		t.Helper()
		testutil.Eventually(t, 60*time.Second, func() bool {
			return count(runtime.EventSpoken) > spoken && v.Idle() && v.Audio().State() != audio.StateExaminerSpeaking
		}, "the examiner to finish speaking")
		spoken = count(runtime.EventSpoken)
		time.Sleep(400 * time.Millisecond) // the half-duplex tail: the microphone opens again
	}
	for i, turn := range said {
		if x.Controller.Snapshot().State.Terminal() {
			t.Fatalf("exam over after %d turns", i)
		}
		quiet()
		src.push(spokenTurn(t, espeak, turn, uint64(i)))
		testutil.Eventually(t, 60*time.Second, func() bool { return count(runtime.EventObservation) == i+1 }, "turn %s", turn)
	}
	testutil.Eventually(t, 60*time.Second, func() bool { return x.Controller.Snapshot().State == runtime.StateCompleted }, "the exam to complete")
	quiet()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	// What the stand-in servers received.
	// Each provider was warmed at the start (a model list: no audio, no cost), through the
	// metering, which must not hide it.
	warmed := func(reqs []openaitest.Request) (rest []openaitest.Request, n int) {
		for _, r := range reqs {
			if r.Method == http.MethodGet && r.Path == "/v1/models" {
				n++
				continue
			}
			rest = append(rest, r)
		}
		return rest, n
	}
	sttReqs, sttWarm := warmed(sttSrv.Requests())
	ttsReqs, ttsWarm := warmed(ttsSrv.Requests())
	if sttWarm != 1 || ttsWarm != 1 {
		t.Errorf("warmed the recogniser %d times and the voice %d times, want once each", sttWarm, ttsWarm)
	}
	var wantSeconds float64
	for _, r := range sttReqs {
		if r.Transcription == nil {
			t.Fatalf("stt server: %s %s", r.Method, r.Path)
		}
		clip, err := audio.ReadWAV(bytes.NewReader(r.Transcription.File))
		if err != nil {
			t.Fatal(err)
		}
		wantSeconds += float64(len(clip.Samples)) / float64(clip.Rate)
	}
	var wantChars int64
	for _, r := range ttsReqs {
		if r.Speech == nil {
			t.Fatalf("tts server: %s %s", r.Method, r.Path)
		}
		wantChars += int64(utf8.RuneCountInString(r.Speech.Input))
	}
	if len(sttReqs) != len(said) || len(ttsReqs) == 0 || wantSeconds < 5 {
		t.Fatalf("the servers received %d transcriptions (%.2f s) and %d speech requests; want %d turns", len(sttReqs), wantSeconds, len(ttsReqs), len(said))
	}
	wantCost := wantSeconds/60*0.006 + float64(wantChars)*15/1e6
	t.Logf("received: %d transcriptions, %.3f s of audio; %d speech requests, %d characters; cost %.6f",
		len(sttReqs), wantSeconds, len(ttsReqs), wantChars, wantCost)

	check := func(where string, u usage.Totals) {
		t.Helper()
		stt, tts := u.STT[sttModel], u.TTS[ttsModel]
		if stt == nil || len(u.STT) != 1 || stt.Requests != int64(len(sttReqs)) || math.Abs(stt.Seconds-wantSeconds) > 1e-6 {
			t.Errorf("%s: stt %+v, want %d requests, %.6f s", where, stt, len(sttReqs), wantSeconds)
		}
		if tts == nil || len(u.TTS) != 1 || tts.Requests != int64(len(ttsReqs)) || tts.Characters != wantChars {
			t.Errorf("%s: tts %+v, want %d requests, %d characters", where, tts, len(ttsReqs), wantChars)
		}
		if c := u.Cost(cfg.Prices); !c.Known || math.Abs(c.Amount-wantCost) > 1e-9 {
			t.Errorf("%s: cost %s, want %.9f", where, c, wantCost)
		}
	}
	st, err := sessions.OpenURL(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("list %v, %v", list, err)
	}
	check("sessions list", list[0].Usage)
	var js bytes.Buffer
	if err := sessions.WriteListJSON(&js, list, cfg.Prices); err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Usage struct {
			STTSeconds    float64  `json:"sttSeconds"`
			TTSCharacters int64    `json:"ttsCharacters"`
			Cost          *float64 `json:"cost"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(js.Bytes(), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("list --json %s: %v", js.String(), err)
	}
	if u := rows[0].Usage; u.STTSeconds != usage.RoundSeconds(wantSeconds) || u.TTSCharacters != wantChars || u.Cost == nil || math.Abs(*u.Cost-wantCost) > 1e-9 {
		t.Errorf("sessions list --json usage %+v, want %v s, %d characters, cost %.9f", u, usage.RoundSeconds(wantSeconds), wantChars, wantCost)
	}
	_, events, err := st.Load(ctx, x.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	check("stored events", usage.Of(events))
	sum, err := st.Summary(ctx, x.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	check("summary", sum.Usage)
	md := sessions.RenderMarkdown(sum, sessions.MarkdownOptions{Prices: cfg.Prices})
	for _, want := range []string{
		fmt.Sprintf("stt %s: %v s of audio in %d requests", sttModel, usage.RoundSeconds(wantSeconds), len(sttReqs)),
		fmt.Sprintf("tts %s: %d characters in %d requests", ttsModel, wantChars, len(ttsReqs)),
		fmt.Sprintf("- **Cost:** %.4f\n", wantCost),
	} {
		if !strings.Contains(md, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, md)
		}
	}

	b, err := monitor.NewBoard(monitor.Thresholds{Prices: cfg.Prices, CostPerExam: cfg.Budget.CostPerExam})
	if err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	updates := make(chan monitor.Update, 4)
	go monitor.Follow(fctx, st, monitor.FollowOptions{Interval: 10 * time.Millisecond}, updates)
	b.ApplyUpdate(testutil.Recv(t, updates, 30*time.Second, "the follower's first update"))
	r := b.Row(x.SessionID)
	if r == nil {
		t.Fatal("the control room has no row for the exam")
	}
	check("control room", r.Usage)
	if !r.Has(monitor.AlertCost) || wantCost <= cfg.Budget.CostPerExam {
		t.Errorf("alerts %v: want a cost alert (cost %.6f over the budget %.4f)", r.Alerts, wantCost, cfg.Budget.CostPerExam)
	}
}
