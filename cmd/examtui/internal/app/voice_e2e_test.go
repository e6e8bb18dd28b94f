package app_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// voiceNullALSA points PortAudio at the ALSA null device (testdata/asound-null.conf), so playback runs
// for real on a machine without a sound card.
func voiceNullALSA(t *testing.T) {
	t.Helper()
	p, err := filepath.Abs("../../../../testdata/asound-null.conf")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("ALSA_CONFIG_PATH", p)
}

// pushSource stands in for the microphone: the test hands it audio, which it delivers as 20 ms
// frames on one continuous timeline, as fast as the voice loop takes them.
type pushSource struct {
	mu     sync.Mutex
	frames chan audio.Frame
	offset int64
	closed bool
}

func newPushSource() *pushSource { return &pushSource{frames: make(chan audio.Frame, 16)} }

func (s *pushSource) Frames() <-chan audio.Frame { return s.frames }

func (s *pushSource) Start(context.Context) error { return nil }

func (s *pushSource) push(samples []int16) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for off := 0; off < len(samples) && !s.closed; off += audio.FrameSamples {
		f := make([]int16, audio.FrameSamples)
		copy(f, samples[off:min(off+audio.FrameSamples, len(samples))])
		s.frames <- audio.Frame{Samples: f, Offset: s.offset, Captured: time.Now()}
		s.offset += audio.FrameSamples
	}
}

func (s *pushSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.frames)
	}
	return nil
}

// spokenTurn is a turn as a microphone would pick it up: espeak-ng speech with a lead-in and a
// second of room noise after it, so the endpointer can close the turn (withRoom).
func spokenTurn(t *testing.T, espeak *audio.Espeak, text string, seed uint64) []int16 {
	t.Helper()
	c, err := espeak.Synthesize(context.Background(), text, audio.SpeakOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c16, err := c.To16k()
	if err != nil {
		t.Fatal(err)
	}
	return withRoom(c16.Samples, seed)
}

// TestVoiceAnswersDemoExamEndToEnd answers the demo exam by voice: each rehearsal turn is
// spoken (espeak-ng, over a noise floor) into the microphone path, cut by the real VAD and
// endpointing, recognised by pocketsphinx, and submitted as a mic turn; the examiner's lines are
// synthesised and played on PortAudio's null device. The exam must reach its end with the
// same decisions as the typed script, and the session's audio must be on disk.
func TestVoiceAnswersDemoExamEndToEnd(t *testing.T) {
	testutil.SkipIfShort(t, "PortAudio, espeak-ng and pocketsphinx")
	voiceNullALSA(t)
	ctx := context.Background()
	dir := t.TempDir()
	said := apptest.Rehearsal(t).Said()
	x, espeak, player := openDemoSpeaking(ctx, t, app.Options{DataDir: dir})
	sphinx, err := audio.NewSphinx(said)
	if err != nil {
		t.Fatal(err)
	}
	defer sphinx.Close()
	src := newPushSource()
	recDir := app.RecordingDir(dir, x.SessionID)
	v, err := app.StartVoice(ctx, x, app.VoiceParts{Source: src, Recognizer: sphinx, Synthesizer: espeak, Sink: player},
		app.WithVoiceRecording(recDir), app.WithVoiceSpeed(2), app.WithVoiceLogger(voiceTestLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if x.Input != runtime.SourceMic {
		t.Errorf("input %q, want mic", x.Input)
	}
	var mu sync.Mutex
	var events []runtime.Event
	x.Subscribe(runtime.SubscriberFunc(func(ev runtime.Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}))
	count := func(typ runtime.EventType) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, ev := range events {
			if ev.Event == typ {
				n++
			}
		}
		return n
	}

	levels := drainLevels(v)
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}

	// The examiner has said something new, finished speaking, and the half-duplex tail
	// (300 ms) has passed. Events reach the voice path before this test's subscriber.
	spoken := 0
	quiet := func() {
		t.Helper()
		testutil.Eventually(t, 30*time.Second, func() bool {
			return count(runtime.EventSpoken) > spoken && v.Idle() && v.Audio().State() != audio.StateExaminerSpeaking
		}, "the examiner to finish speaking")
		spoken = count(runtime.EventSpoken)
		time.Sleep(400 * time.Millisecond)
	}
	for i, turn := range said {
		if x.Controller.Snapshot().State.Terminal() {
			t.Fatalf("exam over after %d turns", i)
		}
		quiet()
		src.push(spokenTurn(t, espeak, turn, uint64(i)))
		testutil.Eventually(t, 30*time.Second, func() bool { return count(runtime.EventObservation) == i+1 }, "turn %s", turn)
	}
	testutil.Eventually(t, 30*time.Second, func() bool { return x.Controller.Snapshot().State == runtime.StateCompleted }, "the exam to complete")
	quiet()

	mu.Lock()
	var heard []string
	var visits []string
	for _, ev := range events {
		p, err := ev.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch p := p.(type) {
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker == "candidate" {
				heard = append(heard, p.Text)
				if p.Source != runtime.SourceMic || p.Confidence <= 0 || p.Confidence > 1 || p.DurationMs < 1000 {
					t.Errorf("candidate segment %+v", p)
				}
			}
		case *runtime.NodeEnteredPayload:
			visits = append(visits, p.NodeID)
		case *runtime.ObservationPayload:
			if l := p.Latency; l.EndpointingMs < 500 || l.EndpointingMs > 520 || l.STTMs <= 0 {
				t.Errorf("turn %d latency %+v: want the endpointing delay and a measured STT stage", p.Turn, l)
			} else if p.Turn > 1 && l.TTSFirstByteMs <= 0 {
				t.Errorf("turn %d latency %+v: no TTS first-audio figure", p.Turn, l)
			}
		}
	}
	mu.Unlock()
	for i, h := range heard {
		if want := audio.NormalizeForGrammar(said[i]); h != want {
			t.Errorf("turn %d heard %q, want %q", i+1, h, want)
		}
	}
	if got := strings.Join(visits, " "); got != "welcome scenario-hotel-breakfast scenario-staff-rota wrapup" {
		t.Errorf("visits %s", got)
	}

	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	states := levels()
	for _, want := range []string{"listening", "speaking", "thinking", "examiner speaking"} {
		if !states[want] {
			t.Errorf("the meter never showed %q (saw %v)", want, states)
		}
	}
	cand, err := audio.ReadWAVFile(filepath.Join(recDir, "candidate.wav"))
	if err != nil {
		t.Fatal(err)
	}
	exam, err := audio.ReadWAVFile(filepath.Join(recDir, "examiner.wav"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cand.Samples) != len(exam.Samples) || loudFor(cand.Samples) < 5*time.Second || loudFor(exam.Samples) < 10*time.Second {
		t.Errorf("recordings: candidate %d samples (%v loud), examiner %d (%v loud)",
			len(cand.Samples), loudFor(cand.Samples), len(exam.Samples), loudFor(exam.Samples))
	}
	sess, err := x.Store.Get(ctx, x.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Recordings) != 2 || sess.Recordings[0] != filepath.Join(recDir, "candidate.wav") {
		t.Errorf("session recordings %v", sess.Recordings)
	}
}

// openDemoSpeaking opens the demo exam with the offline examiner (o adds the rest) and the real
// speech parts, espeak-ng and the PortAudio player; the exam closes with the test.
func openDemoSpeaking(ctx context.Context, t *testing.T, o app.Options) (*app.Exam, *audio.Espeak, *audio.Player) {
	t.Helper()
	o.SpecPath, o.Examiner = "demo", app.ExaminerOffline
	x := apptest.OpenExam(ctx, t, o)
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	player, err := audio.OpenPlayer()
	if err != nil {
		t.Fatal(err)
	}
	return x, espeak, player
}

// voiceTestLogger writes the voice path's log to the test's output.
func voiceTestLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(voiceLogWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type voiceLogWriter struct{ t *testing.T }

func (w voiceLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// loud is how much of s is above -40 dBFS, in 20 ms windows.
func loudFor(s []int16) time.Duration {
	n := 0
	for i := 0; i+audio.FrameSamples <= len(s); i += audio.FrameSamples {
		if audio.LevelDB(s[i:i+audio.FrameSamples]) > -40 {
			n++
		}
	}
	return time.Duration(n) * audio.FrameDuration
}

// drainLevels reads the console's meter feed until it closes and returns the states it saw.
func drainLevels(v *app.Voice) func() map[string]bool {
	ch := v.Levels()
	seen := map[string]bool{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for l := range ch {
			if l.Level < 0 || l.Level > 1 {
				panic("level out of range")
			}
			seen[l.State] = true
		}
	}()
	return func() map[string]bool { <-done; return seen }
}

func TestSwitchInputWithoutVoice(t *testing.T) {
	x, err := app.Open(context.Background(), app.Options{SpecPath: "demo", Examiner: app.ExaminerOffline, NoStore: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.SwitchInput(); !errors.Is(err, app.ErrNoVoice) {
		t.Errorf("SwitchInput without a voice path: %v", err)
	}
}

// A speak-only voice path (no microphone) plays the examiner's lines; pausing the exam cuts
// the line being spoken, records what was heard, and drops the rest; typed answers still work.
func TestVoicePauseCutsExaminerSpeech(t *testing.T) {
	testutil.SkipIfShort(t, "PortAudio and espeak-ng")
	voiceNullALSA(t)
	ctx := context.Background()
	x, espeak, player := openDemoSpeaking(ctx, t, app.Options{NoStore: true})
	v, err := app.StartVoice(ctx, x, app.VoiceParts{Synthesizer: espeak, Sink: player},
		app.WithVoiceStatus("no mic: typing"), app.WithVoiceLogger(voiceTestLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if x.Input != runtime.SourceTyped {
		t.Errorf("input %q without a microphone, want typed", x.Input)
	}
	if _, err := x.SwitchInput(); !errors.Is(err, app.ErrNoMicrophone) {
		t.Errorf("SwitchInput without a microphone: %v", err)
	}
	levels := drainLevels(v)
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, func() bool { return v.Audio().State() == audio.StateExaminerSpeaking }, "the examiner to speak")
	time.Sleep(500 * time.Millisecond)
	if err := x.Control(runtime.ControlPause); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, v.Idle, "the pause to cut the examiner's speech")
	h := v.LastHeard()
	if h == nil || !h.Interrupted || h.PlayedText == h.Text || (h.Total > 0 && h.Played >= h.Total) {
		t.Fatalf("heard %+v", h)
	}
	if err := x.Control(runtime.ControlResume); err != nil {
		t.Fatal(err)
	}
	if err := x.SubmitText("Hello, I'm Priya and I'm on the hospitality management course."); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	states := levels()
	if !states["no mic: typing"] || !states["examiner speaking"] {
		t.Errorf("meter states %v", states)
	}
}
