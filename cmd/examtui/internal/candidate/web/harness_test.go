package web_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

// exam is the demo exam's bot in a real room with a voice: espeak-ng says the examiner's lines
// into its track, and a stand-in recogniser on the OpenAI-compatible wire hears the candidate.
type exam struct {
	lk  *lktest.Server
	x   *app.Exam
	rb  *app.RoomBot
	stt *openaitest.Server

	mu       sync.Mutex
	events   []runtime.Event
	bargeIns int // the bot stopped its line because it heard the candidate
	timings  []voicepath.Timing
}

// startExam opens the exam of specPath ("": the demo exam; offline examiner, a store so a
// rejoining page gets the history) and joins its bot to lk's room; the exam starts when the
// candidate is in the room.
func startExam(t testing.TB, lk *lktest.Server, answers *answers, specPath string) *exam {
	t.Helper()
	ctx := context.Background()
	e := &exam{lk: lk}
	e.stt = openaitest.New(t, openaitest.WithTranscriber(answers.transcribe))
	rec, err := audio.NewOpenAIRecognizer(e.stt.URL(), "sk-test", e.stt.Client())
	if err != nil {
		t.Fatal(err)
	}
	synth, err := audio.NewEspeak(audio.WithEspeakWPM(260))
	if err != nil {
		t.Fatal(err)
	}
	e.x = apptest.OpenExam(ctx, t, app.Options{SpecPath: specPath, DataDir: t.TempDir(), Input: runtime.SourceRoom})
	e.x.Subscribe(runtime.SubscriberFunc(func(ev runtime.Event) {
		e.mu.Lock()
		e.events = append(e.events, ev)
		e.mu.Unlock()
	}))
	e.rb, err = e.x.JoinRoom(ctx, app.RoomOptions{
		Config:      livekit.Config{URL: lk.URL, Token: lk.Token("examtui-bot", livekit.RoleBot)},
		Recognizer:  rec,
		Synthesizer: synth,
		// Barge-in on, as examtui run --room has it (the candidate's browser cancels its own
		// echo); the fixed endpointing delay, so the recogniser hears whole answers only.
		VoiceOptions: []voicepath.Option{voicepath.WithBargeIn(true), voicepath.WithTimings(func(tm voicepath.Timing) {
			e.mu.Lock()
			e.timings = append(e.timings, tm)
			e.mu.Unlock()
		})},
		OnVoiceEvent: func(ev audio.Event) {
			if ev.Kind == audio.EventBargeIn {
				e.mu.Lock()
				e.bargeIns++
				e.mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.rb.Close() })
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if _, err := e.rb.WaitCandidate(wctx); err == nil {
			_ = e.x.Start(ctx)
		}
	}()
	return e
}

// count counts the exam's events of type typ so far.
func (e *exam) count(typ runtime.EventType) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.events {
		if ev.Event == typ {
			n++
		}
	}
	return n
}

// candidateSaid lists the candidate's transcript segments, in order.
func (e *exam) candidateSaid(t testing.TB) []string {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.events {
		if ev.Event != runtime.EventTranscriptSegment {
			continue
		}
		p, err := ev.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if s := p.(*runtime.TranscriptSegmentPayload); s.Speaker == "candidate" {
			out = append(out, s.Text)
		}
	}
	return out
}

func (e *exam) state() runtime.ExamState { return e.x.Controller.Snapshot().State }

// answers are the candidate's spoken answers as WAV files for Chromium's fake microphone:
// espeak-ng at 48 kHz mono 16-bit, each at its own pace so that no two last the same, then a
// long silence (Chromium loops the file; the silence keeps an answer from being said twice).
// The stand-in recogniser knows an answer by how long its speech lasts.
type answers struct {
	said  []string
	files []string
	voice []time.Duration // the voiced length of each answer, the recogniser's key

	mu    sync.Mutex
	heard []string // what the recogniser returned, in order
}

// answerGap is how far apart the answers' voiced lengths are: the recogniser takes the nearest
// within half of it.
const answerGap = 800 * time.Millisecond

func newAnswers(t testing.TB, said []string) *answers {
	t.Helper()
	dir := t.TempDir()
	a := &answers{said: said}
	// Shortest sentences first, each 0.7 s longer than the one before it.
	order := make([]int, len(said))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return len(said[x]) - len(said[y]) })
	a.files = make([]string, len(said))
	a.voice = make([]time.Duration, len(said))
	for rank, i := range order {
		target := 1500*time.Millisecond + time.Duration(rank)*answerGap
		path := filepath.Join(dir, fmt.Sprintf("answer-%d.wav", i))
		natural := speak(t, said[i], 175, path)
		wpm := int(math.Round(175 * natural.Seconds() / target.Seconds()))
		a.voice[i] = speak(t, said[i], wpm, path)
		if d := a.voice[i] - target; d.Abs() > answerGap/4 {
			// espeak-ng's pace is not quite linear in its wpm: one correction.
			wpm = int(math.Round(float64(wpm) * a.voice[i].Seconds() / target.Seconds()))
			a.voice[i] = speak(t, said[i], wpm, path)
		}
		a.files[i] = path
	}
	for i := range a.voice {
		for j := range i {
			if d := a.voice[i] - a.voice[j]; d.Abs() < answerGap*2/3 {
				t.Fatalf("answers %d and %d last %s and %s: too close for the recogniser to tell apart", j, i, a.voice[j], a.voice[i])
			}
		}
	}
	return a
}

// speak writes text as a 48 kHz mono WAV at wpm, 0.3 s of silence before it and 30 s after,
// and returns how long it is voiced (voicedLength).
func speak(t testing.TB, text string, wpm int, path string) time.Duration {
	t.Helper()
	raw, err := exec.Command("espeak-ng", "-s", strconv.Itoa(wpm), "--stdout", text).Output()
	if err != nil {
		t.Fatalf("espeak-ng: %v", err)
	}
	cmd := exec.Command("sox", "-t", "wav", "-", "-r", "48000", "-c", "1", "-b", "16", path, "pad", "0.3", "30")
	cmd.Stdin = bytes.NewReader(raw)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pcm, err := openaitest.ReadWAV(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return voicedLength(pcm)
}

// silence writes 30 s of digital silence as a 48 kHz mono WAV.
func silence(t testing.TB, path string) {
	t.Helper()
	if out, err := exec.Command("sox", "-n", "-r", "48000", "-c", "1", "-b", "16", path, "trim", "0", "30").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
}

// voicedLength is how long a clip is voiced: the number of 10 ms windows above -40 dBFS. Gaps
// a loaded machine puts into the received audio (late packets played as silence) do not count,
// so an answer keeps its length on its way through the browser, the room and the bot.
func voicedLength(p *openaitest.PCM) time.Duration {
	win := p.SampleRate / 100
	n := 0
	for i := 0; i+win <= len(p.Samples); i += win {
		var sum float64
		for _, s := range p.Samples[i : i+win] {
			sum += float64(s) * float64(s)
		}
		if math.Sqrt(sum/float64(win)) > 327 { // -40 dBFS
			n++
		}
	}
	return time.Duration(n) * 10 * time.Millisecond
}

// transcribe is the stand-in recogniser: the answer whose speech lasts as long as the
// utterance's (within half the gap between answers), or nothing (a cough, a burst of echo).
func (a *answers) transcribe(req *openaitest.TranscriptionRequest) openaitest.Behaviour {
	pcm, err := openaitest.ReadWAV(bytes.NewReader(req.File))
	if err != nil {
		return openaitest.Status(400, openaitest.ErrorBody("invalid_request_error", "", err.Error()))
	}
	got := voicedLength(pcm)
	best, bestD := -1, answerGap/2
	for i, v := range a.voice {
		if d := (got - v).Abs(); d < bestD {
			best, bestD = i, d
		}
	}
	text := ""
	if best >= 0 {
		text = a.said[best]
	}
	a.mu.Lock()
	a.heard = append(a.heard, fmt.Sprintf("%s→%q", got.Round(10*time.Millisecond), text))
	a.mu.Unlock()
	return openaitest.Transcribed(openaitest.Transcript{Text: text})
}

func (a *answers) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.Join(a.heard, "\n  ")
}
