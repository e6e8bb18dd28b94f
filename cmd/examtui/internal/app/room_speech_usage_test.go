package app_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/endpoint/endpointtest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
	"github.com/examtui/examtui/transport/livekit"
)

// TestRoomSpeechUsage: the room bot's voice (the OpenAI-compatible one, against the test
// server) records what it was asked to say, as the local microphone path does: the stored
// ttsCharacters are the characters the server received, for a candidate answering by text.
func TestRoomSpeechUsage(t *testing.T) {
	testutil.SkipIfShort(t, "LiveKit server and espeak-ng")
	srv := lktest.Start(t)
	ttsSrv := openaitest.New(t, openaitest.WithAPIKey("sk-tts-room"))
	endpointtest.Isolate(t, map[string]string{
		"EXAMTUI_TTS_BASE_URL": ttsSrv.URL(), "EXAMTUI_TTS_API_KEY": "sk-tts-room", "EXAMTUI_TTS_MODEL": "kokoro",
	})
	ctx := context.Background()
	dir := t.TempDir()
	x := apptest.OpenExam(ctx, t, app.Options{DataDir: dir, Input: runtime.SourceRoom, Logger: testLog(t)})
	synth, err := app.NewSynthesizer(app.SpeechAuto, "", "", testLog(t))
	if _, ok := synth.(*audio.OpenAISpeech); err != nil || !ok {
		t.Fatalf("voice %T: %v", synth, err)
	}
	rb, err := x.JoinRoom(ctx, app.RoomOptions{Config: livekit.Config{URL: srv.URL, Token: srv.Token("examtui-bot", livekit.RoleBot)},
		Synthesizer: synth})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	lastLine := ""
	x.Subscribe(runtime.SubscriberFunc(func(ev runtime.Event) {
		if p, err := ev.Decode(); err == nil {
			if sp, ok := p.(*runtime.SpokenPayload); ok {
				mu.Lock()
				lastLine = sp.Text
				mu.Unlock()
			}
		}
	}))
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cand := dial(t, srv, "candidate-1", livekit.RoleCandidate)
	lines := apptest.Rehearsal(t).Said()
	for i, line := range lines[:2] {
		answer(t, cand, line)
		testutil.Eventually(t, 30*time.Second, func() bool { return x.Controller.Snapshot().Turn == i+1 }, "turn %d", i+1)
	}
	// The bot has asked the voice for the last sentence of the examiner's latest line (it speaks
	// by sentence) and finished saying it.
	testutil.Eventually(t, 60*time.Second, func() bool {
		mu.Lock()
		line := lastLine
		mu.Unlock()
		reqs := ttsSrv.Requests()
		return line != "" && len(reqs) > 0 && reqs[len(reqs)-1].Speech != nil &&
			strings.HasSuffix(strings.TrimSpace(line), strings.TrimSpace(reqs[len(reqs)-1].Speech.Input)) && rb.Voice.Audio().State() != audio.StateExaminerSpeaking
	}, "the bot to say the examiner's latest line")
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rb.Close(); err != nil {
		t.Fatal(err)
	}
	var want int64
	n := 0
	for _, r := range ttsSrv.Requests() {
		if r.Speech != nil {
			want += int64(utf8.RuneCountInString(r.Speech.Input))
			n++
		}
	}
	st := apptest.OpenStore(t, dir)
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("list %v, %v", list, err)
	}
	_, events, err := st.Load(ctx, x.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	for where, u := range map[string]usage.Totals{"sessions list": list[0].Usage, "stored events": usage.Of(events)} {
		if m := u.TTS["kokoro"]; m == nil || m.Requests != int64(n) || m.Characters != want {
			t.Errorf("%s: tts %+v, want %d requests, %d characters (what the server received)", where, m, n, want)
		}
	}
}
