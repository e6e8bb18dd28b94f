package worker

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/livekit/agent"
	"github.com/examtui/examtui/transport/voicepath"
)

// TestWorkerPersonaVoice: a worker's exam whose persona has a `voice:` speaks in that voice,
// as a room exam and the microphone do. The candidate records the opening of the demo exam and
// of the demo with the opening persona's voice set, each dispatched to the worker's runner,
// and sox measures both. (The worker's bots used to say every line in the default voice.)
func TestWorkerPersonaVoice(t *testing.T) {
	testutil.SkipIfShort(t, "a LiveKit server, espeak-ng and sox")
	apptest.NeedSox(t)
	srv := lktest.Start(t)
	specs, out := t.TempDir(), t.TempDir()
	apptest.DemoWithVoice(t, specs, "plain", "")
	apptest.DemoWithVoice(t, specs, "persona", apptest.PersonaVoice)
	ctx := context.Background()
	r, err := NewRunner(ctx, Config{DataDir: t.TempDir(), SpecsDir: specs, Examiner: "offline", Logger: testLog(t),
		Voice: func(string, *spec.ResolvedTurnTaking, *slog.Logger) (audio.Recognizer, audio.Synthesizer, []voicepath.Option, error) {
			espeak, err := audio.NewEspeak()
			return nil, espeak, nil, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	record := func(name string) string {
		jctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			done <- r.Run(jctx, agent.Assignment{JobRequest: agent.JobRequest{ID: "AJ_" + name, Room: name, RoomSID: "RM_" + name,
				Metadata: `{"spec":"` + name + `","candidate":"Ada"}`}, URL: srv.URL, Token: srv.RoomToken(name, DefaultBotIdentity, livekit.RoleBot)})
		}()
		cand, err := livekit.Dial(jctx, srv.URL, srv.RoomToken(name, "candidate-1", livekit.RoleCandidate))
		if err != nil {
			t.Fatal(err)
		}
		defer cand.Close()
		path := filepath.Join(out, name+".wav")
		apptest.RecordSpeech(jctx, t, cand, 3*time.Second, path)
		cancel()
		<-done
		return path
	}
	def := apptest.SoxFrequency(t, record("plain"))
	persona := apptest.SoxFrequency(t, record("persona"))
	apptest.LowerVoice(t, "the worker's opening", def, persona)
}
