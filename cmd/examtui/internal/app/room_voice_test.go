package app_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// personaVoice is an espeak-ng voice well below the default one in pitch.
const personaVoice = "en+m7"

// TestRoomPersonaVoice: a room exam whose persona has a `voice:` speaks in that voice. The
// candidate records the examiner's opening as it arrives over the room, once for the demo
// exam and once with the opening persona's voice set, and sox measures both recordings: the
// persona's voice is well below the default in frequency. (The room bot used to say every line
// in the default voice: the persona's was honoured by the microphone path only.)
func TestRoomPersonaVoice(t *testing.T) {
	testutil.SkipIfShort(t, "a LiveKit server, espeak-ng and sox")
	if _, err := exec.LookPath("sox"); err != nil {
		t.Skip("sox is not installed")
	}
	srv := lktest.Start(t)
	dir := t.TempDir()
	def := soxFrequency(t, recordOpening(t, srv, dir, ""))
	persona := soxFrequency(t, recordOpening(t, srv, dir, personaVoice))
	t.Logf("sox rough frequency of the examiner's opening: default voice %d Hz, persona voice %q %d Hz", def, personaVoice, persona)
	if float64(persona) > 0.85*float64(def) {
		t.Fatalf("the opening in the persona's voice measures %d Hz, the default %d Hz: the persona's voice was not used", persona, def)
	}
}

// recordOpening runs the demo exam in srv's room (its opening persona's voice set to voice,
// when given) and records the first seconds of the examiner's speech as the candidate hears
// it; it returns the WAV file.
func recordOpening(t *testing.T, srv *lktest.Server, dir, voice string) string {
	t.Helper()
	src := string(examples.Demo())
	if voice != "" {
		const persona = "persona:\n  id: examiner\n"
		if !strings.Contains(src, persona) {
			t.Fatal("the demo exam's persona is not where the test expects it")
		}
		src = strings.Replace(src, persona, persona+"  voice: "+voice+"\n", 1)
	}
	name := "default"
	if voice != "" {
		name = voice
	}
	specPath := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(specPath, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	room := "voice-" + strings.NewReplacer("+", "-").Replace(name)
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
	// The first 3 s of speech: the examiner's opening, the same words in both runs.
	var samples []int16
	rate := 0
	for rate == 0 || len(samples) < 3*rate {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %d samples of the examiner's opening heard", name, len(samples))
		case f := <-cand.Audio():
			if len(samples) == 0 && audio.RMS(f.Samples) < 500 {
				continue // silence before the examiner speaks
			}
			rate = f.SampleRate
			samples = append(samples, f.Samples...)
		}
	}
	path := filepath.Join(dir, name+".wav")
	if err := audio.WriteWAVFile(path, audio.Clip{Samples: samples, Rate: rate}); err != nil {
		t.Fatal(err)
	}
	return path
}

var roughFrequency = regexp.MustCompile(`Rough\s+frequency:\s+(\d+)`)

// soxFrequency is sox's rough frequency of the WAV file (`sox FILE -n stat`).
func soxFrequency(t *testing.T, path string) int {
	t.Helper()
	out, err := exec.Command("sox", path, "-n", "stat").CombinedOutput()
	if err != nil {
		t.Fatalf("sox %s: %v\n%s", path, err, out)
	}
	m := roughFrequency.FindSubmatch(out)
	if m == nil {
		t.Fatalf("sox %s: no rough frequency in\n%s", path, out)
	}
	hz, _ := strconv.Atoi(string(m[1]))
	t.Logf("sox %s -n stat:\n%s", filepath.Base(path), out)
	return hz
}
