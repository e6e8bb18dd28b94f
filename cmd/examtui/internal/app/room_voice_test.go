package app_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// TestRoomPersonaVoice: a room exam whose persona has a `voice:` speaks in that voice. The
// candidate records the examiner's opening as it arrives over the room, once for the demo
// exam and once with the opening persona's voice set, and sox measures both recordings: the
// persona's voice is well below the default in frequency. (The room bot used to say every line
// in the default voice: the persona's was honoured by the microphone path only.)
func TestRoomPersonaVoice(t *testing.T) {
	testutil.SkipIfShort(t, "a LiveKit server, espeak-ng and sox")
	apptest.NeedSox(t)
	srv := lktest.Start(t)
	dir := t.TempDir()
	def := apptest.SoxFrequency(t, recordOpening(t, srv, dir, ""))
	persona := apptest.SoxFrequency(t, recordOpening(t, srv, dir, apptest.PersonaVoice))
	apptest.LowerVoice(t, "the room's opening", def, persona)
}

// recordOpening runs the demo exam in a room of srv (its opening persona's voice set to voice,
// when given) and records the first 3 s of the examiner's speech as the candidate hears it; it
// returns the WAV file.
func recordOpening(t *testing.T, srv *lktest.Server, dir, voice string) string {
	t.Helper()
	name := "default"
	if voice != "" {
		name = voice
	}
	specPath := apptest.DemoWithVoice(t, dir, name, voice)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	room := "voice-" + strings.ReplaceAll(name, "+", "-")
	x := apptest.OpenExam(ctx, t, app.Options{SpecPath: specPath, NoStore: true, Input: runtime.SourceRoom, Logger: testLog(t)})
	rb, err := x.JoinRoom(ctx, app.RoomOptions{Config: livekit.Config{URL: srv.URL, Token: srv.RoomToken(room, "examtui-bot", livekit.RoleBot)},
		Synthesizer: espeak})
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Close()
	cand, err := livekit.Dial(ctx, srv.URL, srv.RoomToken(room, "candidate-1", livekit.RoleCandidate))
	if err != nil {
		t.Fatal(err)
	}
	defer cand.Close()
	if err := cand.WaitBot(ctx); err != nil {
		t.Fatal(err)
	}
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".wav")
	apptest.RecordSpeech(ctx, t, cand, 3*time.Second, path)
	return path
}
