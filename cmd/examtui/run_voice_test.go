package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	"github.com/spf13/cobra"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/atrest"
	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// silentALSAConfig is an ALSA config whose default device plays into the null device and
// records silence (/dev/zero): the plain null device records garbage a VAD takes for speech.
func silentALSAConfig(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../audio/testdata/asound-silent.conf")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunMicInTmux runs `examtui run --mic` in a real terminal on PortAudio's null device,
// with recognition and speech from an OpenAI-compatible server: the console opens for spoken
// answers with a live meter, the examiner's lines are synthesised and played, ctrl+t switches
// to typing and back, typed answers still work, and the session's audio is recorded.
func TestRunMicInTmux(t *testing.T) {
	testutil.SkipIfShort(t, "PortAudio and espeak-ng")
	bin := examtuiBinary(t)
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), echoTranscriberCmd("nothing"))
	dataDir := filepath.Join(t.TempDir(), "data")
	tt, stderrPath, rcPath := startInTmux(t, "/usr/bin/env", dataDir, "ALSA_CONFIG_PATH="+silentALSAConfig(t),
		"OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=sk-test",
		bin, "run", "demo", "--examiner", "offline", "--mic")
	tt.waitScreen("the recording notice", "Recording notice: This exam is recorded", "Press Enter to agree")
	tt.keys("Enter")
	tt.waitScreen("start", "input mic", "Examiner: Welcome.", "audio ")
	// The status line is narrow: the title gives way, then the end of the meter's state.
	tt.waitScreen("examiner speech", "examiner sp")
	tt.waitScreen("listening after the examiner", "listening")

	tt.keys("C-t")
	tt.waitScreen("switched to typing", "input typed", "mic off")
	tt.typeLine("Hello, I'm Priya and I'm on the hospitality management course.")
	tt.waitScreen("typed answer", "answer sent", "Candidate: Hello, I'm Priya")
	tt.keys("C-t")
	tt.waitScreen("switched back", "input mic")

	tt.keys("C-c")
	tt.waitScreen("quit confirmation", "y")
	tt.keys("y")
	waitExitOK(t, rcPath, stderrPath)
	speech := 0
	for _, r := range srv.Requests() {
		if r.Speech != nil {
			speech++
		}
	}
	if speech == 0 {
		t.Error("no examiner line was synthesised")
	}

	ctx := context.Background()
	st := apptest.OpenStore(t, dataDir)
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v %v", list, err)
	}
	if _, ok, err := st.NoticeAck(ctx, list[0].ID); err != nil || !ok {
		t.Errorf("the candidate's acknowledgement of the recording notice is not on the session: %v %v", ok, err)
	}
	recs := list[0].Recordings
	if len(recs) != 2 || filepath.Dir(recs[0]) != filepath.Join(dataDir, "sessions", list[0].ID) {
		t.Fatalf("recordings %v", recs)
	}
	exam, err := audio.ReadWAVFile(recs[1])
	if err != nil {
		t.Fatal(err)
	}
	cand, err := audio.ReadWAVFile(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(exam.Samples) != len(cand.Samples) || exam.Duration() < 2*time.Second {
		t.Errorf("examiner track %v, candidate track %v", exam.Duration(), cand.Duration())
	}
	// The microphone was silent: the one candidate turn is the typed one, and nothing was
	// sent for recognition.
	evs, err := st.LoadEvents(ctx, list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, ev := range evs {
		if p, ok := decodeAs[*runtime.TranscriptSegmentPayload](ev); ok && p.Speaker == "candidate" {
			said = append(said, p.Source.String()+": "+p.Text)
		}
	}
	if strings.Join(said, "|") != "typed: Hello, I'm Priya and I'm on the hospitality management course." {
		t.Errorf("candidate turns %q", said)
	}
	for _, r := range srv.Requests() {
		if r.Transcription != nil {
			t.Errorf("a silent microphone produced a transcription request")
		}
	}
}

// TestRunMicWithoutDevice: no sound card (no ALSA config): the console still opens, with
// typed answers and a status saying why, stderr says what to do, and answers work.
func TestRunMicWithoutDevice(t *testing.T) {
	testutil.SkipIfShort(t, "PortAudio")
	bin := examtuiBinary(t)
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), echoTranscriberCmd("nothing"))
	dataDir := filepath.Join(t.TempDir(), "data")
	tt, stderrPath, rcPath := startInTmux(t, "/usr/bin/env", dataDir,
		"OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=sk-test",
		bin, "run", "demo", "--examiner", "offline", "--mic")
	tt.waitScreen("the recording notice", "Recording notice:", "Press Enter to agree")
	tt.keys("Enter")
	tt.waitScreen("start", "input typed", "no mic", "Examiner: Welcome.")
	// Why typing was chosen, and what to set, is on the screen (the transcript's first line).
	tt.waitScreen("the reason and what to do", "Answers are typed", "--input-device", "ALSA_CONFIG_PATH")
	tt.typeLine("Hello, I'm Priya and I'm on the hospitality management course.")
	tt.waitScreen("typed answer", "answer sent", "Candidate: Hello, I'm Priya")
	tt.keys("C-c")
	tt.waitScreen("quit confirmation", "y")
	tt.keys("y")
	waitExitOK(t, rcPath, stderrPath)
}

func echoTranscriberCmd(text string) openaitest.Option {
	return openaitest.WithTranscriber(func(*openaitest.TranscriptionRequest) openaitest.Behaviour {
		return openaitest.Transcribed(openaitest.Transcript{Text: text})
	})
}

// The config file's audio section fills every voice flag not given; given flags win. (The
// models come from the stage endpoints, endpoint.Resolve, where the config file's are too.)
func TestVoiceOptionsMerged(t *testing.T) {
	saved := globals.config
	t.Cleanup(func() { globals.config = saved })
	globals.config.Audio = config.Audio{InputDevice: "2", OutputDevice: "USB", MinEndpointingDelay: 0.8,
		MaxEndpointingDelay: 2.5, STT: "none", TTS: "espeak", Voice: "en-gb", BargeIn: true}
	cases := []struct {
		args []string
		want voiceOptions
	}{
		{nil, voiceOptions{inputDevice: "2", outputDevice: "USB", minDelay: 800 * time.Millisecond, maxDelay: 2500 * time.Millisecond,
			stt: "none", tts: "espeak", voice: "en-gb", bargeIn: true}},
		{[]string{"--input-device", "0", "--stt", "openai", "--min-endpointing-delay", "300ms", "--barge-in=false", "--voice", "alloy"},
			voiceOptions{inputDevice: "0", outputDevice: "USB", minDelay: 300 * time.Millisecond, maxDelay: 2500 * time.Millisecond,
				stt: "openai", tts: "espeak", voice: "alloy", bargeIn: false}},
	}
	for _, tc := range cases {
		got := mergedFrom(t, tc.args)
		got.flags, got.mic, got.noRecord = nil, false, false
		if got != tc.want {
			t.Errorf("%v: merged %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

// mergedFrom parses args into a fresh set of voice flags and merges the config file.
func mergedFrom(t *testing.T, args []string) voiceOptions {
	t.Helper()
	c := &cobra.Command{Use: "x"}
	var o voiceOptions
	o.addFlags(c)
	if err := c.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	return o.merged()
}

// TestRunMicEncryptsRecordings: with records.recipients in the config file, run --mic leaves
// only age-encrypted recordings, listed on the session; the identity decrypts them to the WAV
// files they were.
func TestRunMicEncryptsRecordings(t *testing.T) {
	testutil.SkipIfShort(t, "PortAudio and espeak-ng")
	bin := examtuiBinary(t)
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), echoTranscriberCmd("nothing"))
	dataDir := filepath.Join(t.TempDir(), "data")
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("records:\n  recipients: ["+id.Recipient().String()+"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tt, stderrPath, rcPath := startInTmux(t, "/usr/bin/env", dataDir, "ALSA_CONFIG_PATH="+silentALSAConfig(t),
		"OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=sk-test", "EXAMTUI_CONFIG="+cfg,
		bin, "run", "demo", "--examiner", "offline", "--mic")
	tt.waitScreen("the recording notice", "Recording notice:")
	tt.keys("Enter")
	tt.waitScreen("start", "input mic", "Examiner: Welcome.")
	tt.keys("C-c")
	tt.waitScreen("quit confirmation", "y")
	tt.keys("y")
	waitExitOK(t, rcPath, stderrPath)
	st := apptest.OpenStore(t, dataDir)
	list, err := st.List(context.Background())
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v %v", list, err)
	}
	recs := list[0].Recordings
	if len(recs) != 2 || !strings.HasSuffix(recs[0], atrest.Suffix) || !strings.HasSuffix(recs[1], atrest.Suffix) {
		t.Fatalf("recordings %v, want both encrypted", recs)
	}
	if _, err := os.Stat(strings.TrimSuffix(recs[0], atrest.Suffix)); !os.IsNotExist(err) {
		t.Errorf("the plaintext recording stayed: %v", err)
	}
	plain, err := atrest.DecryptTo(t.TempDir(), recs[0], []age.Identity{id})
	if err != nil {
		t.Fatal(err)
	}
	if w, err := audio.ReadWAVFile(plain); err != nil || w.Duration() <= 0 {
		t.Errorf("the decrypted recording is not the WAV it was: %v", err)
	}
}
