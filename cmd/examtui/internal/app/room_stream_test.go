package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/endpoint/endpointtest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// TestRoomVoicePlaysFromTheFirstFrame: the voice endpoint streams its answer slowly (50 ms of
// audio every 150 ms, so the whole of a short sentence takes seconds and a busy machine's
// delays stay far inside the margin), and the candidate hears the examiner's opening while the
// rest of its first sentence is still arriving, not once the whole WAV is there.
func TestRoomVoicePlaysFromTheFirstFrame(t *testing.T) {
	testutil.SkipIfShort(t, "LiveKit server and espeak-ng")
	const chunk, every = 50 * time.Millisecond, 150 * time.Millisecond
	srv := lktest.Start(t)
	ttsSrv := openaitest.New(t, openaitest.WithAPIKey("sk-tts-stream"))
	streamed := make([]openaitest.Behaviour, 30)
	for i := range streamed {
		streamed[i] = openaitest.Synthesised(openaitest.Streamed(openaitest.SpeechSampleRate*2*int(chunk/time.Millisecond)/1000, every))
	}
	ttsSrv.EnqueueSpeech(streamed...)
	endpointtest.Isolate(t, map[string]string{
		"EXAMTUI_TTS_BASE_URL": ttsSrv.URL(), "EXAMTUI_TTS_API_KEY": "sk-tts-stream", "EXAMTUI_TTS_MODEL": "kokoro",
	})
	ctx := context.Background()
	x := apptest.OpenExam(ctx, t, app.Options{DataDir: t.TempDir(), Input: runtime.SourceRoom, Logger: testLog(t)})
	synth, err := app.NewSynthesizer(app.SpeechAuto, "", "", testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := x.JoinRoom(ctx, app.RoomOptions{Config: livekit.Config{URL: srv.URL, Token: srv.Token("examtui-bot", livekit.RoleBot)},
		Synthesizer: synth})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close(); _ = rb.Close() })
	cand := dial(t, srv, "candidate-1", livekit.RoleCandidate)
	heard := make(chan time.Time, 1)
	go func() {
		for f := range cand.Audio() {
			if audio.LevelDB(f.Samples) > -45 {
				heard <- f.Received
				return
			}
		}
	}()
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var first time.Time
	select {
	case first = <-heard:
	case <-time.After(60 * time.Second):
		t.Fatal("the candidate never heard the examiner")
	}
	var req openaitest.Request
	for _, r := range ttsSrv.Requests() {
		if r.Speech != nil {
			req = r
			break
		}
	}
	if req.Speech == nil {
		t.Fatal("no speech request")
	}
	pcm, err := openaitest.Synthesize(ctx, "espeak-ng", "en-us", req.Speech.Input, 1)
	if err != nil {
		t.Fatal(err)
	}
	chunks := (len(pcm.Samples)*int(time.Second/time.Millisecond)/openaitest.SpeechSampleRate + int(chunk/time.Millisecond) - 1) / int(chunk/time.Millisecond)
	whole := req.Time.Add(time.Duration(chunks-1) * every) // the response's last chunk is sent no sooner
	if chunks < 10 {
		t.Fatalf("the opening's first sentence %q is %d chunks: too short to tell", req.Speech.Input, chunks)
	}
	t.Logf("first sentence %q: %d chunks, the last sent no sooner than %v after the request; heard after %v",
		req.Speech.Input, chunks, whole.Sub(req.Time), first.Sub(req.Time).Round(time.Millisecond))
	if !first.Before(whole.Add(-time.Second)) {
		t.Fatalf("heard %v after the request, the whole answer took at least %v: playout waited for the whole sentence",
			first.Sub(req.Time).Round(time.Millisecond), whole.Sub(req.Time))
	}
}
