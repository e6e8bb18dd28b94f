package audio

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
)

// eventLog collects voice events safely.
type eventLog struct {
	mu     sync.Mutex
	events []Event
	finals chan FinalTranscript
}

func newEventLog() *eventLog { return &eventLog{finals: make(chan FinalTranscript, 16)} }

func (l *eventLog) add(e Event) {
	if e.Kind == EventLevel {
		return
	}
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
	if e.Kind == EventFinal {
		l.finals <- *e.Final
	}
}

func (l *eventLog) states() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.events {
		if e.Kind == EventState {
			out = append(out, e.State.String())
		}
	}
	return out
}

func (l *eventLog) count(k EventKind) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.events {
		if e.Kind == k {
			n++
		}
	}
	return n
}

func (l *eventLog) wait(t *testing.T, n int) []FinalTranscript {
	t.Helper()
	var out []FinalTranscript
	timeout := time.After(30 * time.Second)
	for len(out) < n {
		select {
		case f := <-l.finals:
			out = append(out, f)
		case <-timeout:
			t.Fatalf("got %d final transcripts, want %d", len(out), n)
		}
	}
	return out
}

// echoTranscriber answers every upload with a fixed sentence and a confidence.
func echoTranscriber(text string) openaitest.Option {
	return openaitest.WithTranscriber(func(req *openaitest.TranscriptionRequest) openaitest.Behaviour {
		return openaitest.Transcribed(openaitest.Transcript{Text: text, Segments: []openaitest.Segment{
			{Start: 0, End: 1, Text: text, AvgLogprob: -0.1, NoSpeechProb: 0.02}}})
	})
}

func TestVoiceTurnsFromClipSource(t *testing.T) {
	a := speak16k(t, "Good morning, I would like")
	b := speak16k(t, "a table for two by the window.")
	c := speak16k(t, "Is breakfast included in the price?")
	sc := buildScene(SampleRate, a, 300, b, 1500, c, 1500)
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), echoTranscriber("heard"))
	log := newEventLog()
	v := startVoice(t, NewClipSource(sc.samples, false), newTestRecognizer(t, srv), nil, nil, WithOnEvent(log.add))
	finals := log.wait(t, 2)
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	wants := [][2]int64{{samplesToMs(sc.bounds[0][0]), samplesToMs(sc.bounds[1][1])}, {samplesToMs(sc.bounds[2][0]), samplesToMs(sc.bounds[2][1])}}
	for i, f := range finals {
		if f.Text != "heard" || f.EndpointingMs < 500 || f.EndpointingMs > 520 || f.STTMs <= 0 {
			t.Errorf("final %d: %+v", i, f.Transcript)
		}
		if abs64(f.StartMs-wants[i][0]) > 60 || abs64(f.StartMs+f.DurationMs-wants[i][1]) > 120 {
			t.Errorf("final %d spans %d+%d ms, want %d..%d", i, f.StartMs, f.DurationMs, wants[i][0], wants[i][1])
		}
	}
	got := strings.Join(log.states(), ",")
	// Unpaced, the second turn may start before the first is recognised: thinking → speaking.
	if strings.Count(got, "speaking,thinking") != 2 || !strings.HasSuffix(got, "thinking,listening") {
		t.Errorf("states %s", got)
	}
	if n := log.count(EventPartial); n != 2 {
		t.Errorf("%d interim partials, want one per turn", n)
	}
	if n := log.count(EventSpeechEnded); n != 2 {
		t.Errorf("%d speech ends, want 2", n)
	}
}

func TestVoiceTurnDetectorHoldsUnfinishedSentence(t *testing.T) {
	a := speak16k(t, "Good morning, I would like")
	b := speak16k(t, "a table for two by the window.")
	sc := buildScene(SampleRate, a, 1200, b, 3500)
	srv, _ := numberedTranscriber(t, func(n int) openaitest.Behaviour {
		text := "Good morning, I would like" // the partial during the pause
		if n > 1 {
			text = "Good morning, I would like a table for two by the window."
		}
		return openaitest.Transcribed(openaitest.Transcript{Text: text})
	})
	log := newEventLog()
	// Paced: the partial transcription must come back while the pause is still going on.
	v := startVoice(t, NewClipSource(sc.samples, true), newTestRecognizer(t, srv), nil, nil,
		WithOnEvent(log.add), WithTurnDetector(LooksUnfinished))
	finals := log.wait(t, 1)
	v.Close()
	if !strings.HasSuffix(finals[0].Text, "window.") || finals[0].Utterance.Delay != 500*time.Millisecond {
		t.Fatalf("final %q with delay %v: the 1.2 s pause after %q should have been held", finals[0].Text, finals[0].Utterance.Delay, "like")
	}
	if abs64(finals[0].StartMs+finals[0].DurationMs-samplesToMs(sc.bounds[1][1])) > 120 {
		t.Errorf("turn ends at %d ms, want %d", finals[0].StartMs+finals[0].DurationMs, samplesToMs(sc.bounds[1][1]))
	}
}

func TestLooksUnfinished(t *testing.T) {
	cases := map[string]bool{
		"I would like":                true,
		"I think, because":            true,
		"the price is, um":            true,
		"I would like a table.":       false,
		"Is breakfast included?":      false,
		"yes":                         false,
		"":                            false,
		InterimText:                   false,
		"two eggs and":                true,
		"I went there with my sister": false,
	}
	for in, want := range cases {
		if got := LooksUnfinished(in); got != want {
			t.Errorf("LooksUnfinished(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestVoiceSpeaksAndHalfDuplexIgnoresMic(t *testing.T) {
	espeak, player := speechOut(t)
	// The candidate talks over the examiner from 0.5 s on; in half duplex nobody hears it.
	talk := speak16k(t, "Is breakfast included in the price?")
	sc := buildScene(SampleRate/2, talk, 4000)
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), echoTranscriber("heard"))
	log := newEventLog()
	recDir := t.TempDir()
	recorder, err := NewSessionRecorder(recDir)
	if err != nil {
		t.Fatal(err)
	}
	v := startVoice(t, NewClipSource(sc.samples, true), newTestRecognizer(t, srv), espeak, player,
		WithOnEvent(log.add), WithRecorder(recorder))
	const text = "Good morning. Welcome to the hotel. What would you like for breakfast today?"
	res, err := v.Speak(context.Background(), text, SpeakOptions{Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted || res.PlayedText != text || res.Played != res.Total || res.Total < 3*time.Second {
		t.Fatalf("speak result %+v", res)
	}
	if res.FirstAudioMs <= 0 || time.Duration(res.FirstAudioMs*float64(time.Millisecond)) >= res.Total {
		t.Errorf("first audio after %.1f ms of %v", res.FirstAudioMs, res.Total)
	}
	// The whole clip (the candidate's speech and the silence after it) has passed the loop:
	// a turn it started would have been counted by now.
	total := uint64((len(sc.samples) + FrameSamples - 1) / FrameSamples)
	testutil.Eventually(t, 20*time.Second, func() bool { st := v.Stats(); return st.Ignored+st.Frames >= total },
		"all %d frames of the clip to pass the loop", total)
	if n := log.count(EventSpeechStarted); n != 0 {
		t.Errorf("%d speech starts while the examiner spoke (half duplex)", n)
	}
	if v.Stats().Ignored == 0 {
		t.Error("no frames ignored")
	}
	states := strings.Join(log.states(), ",")
	if !strings.Contains(states, "examiner speaking,listening") {
		t.Errorf("states %s", states)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if err := recorder.Close(); err != nil {
		t.Fatal(err)
	}
	cand, err := ReadWAVFile(recorder.Path(TrackCandidate))
	if err != nil {
		t.Fatal(err)
	}
	exam, err := ReadWAVFile(recorder.Path(TrackExaminer))
	if err != nil {
		t.Fatal(err)
	}
	if len(cand.Samples) != len(exam.Samples) {
		t.Errorf("tracks of %d and %d samples", len(cand.Samples), len(exam.Samples))
	}
	// The examiner's speech is on its track, spanning about as long as it played (plus the
	// moments between sentences, which sit on the timeline as silence).
	s, e := speechBounds(exam.Samples)
	if heard := time.Duration(e-s) * time.Second / SampleRate; heard < res.Total-500*time.Millisecond || heard > res.Total+time.Second {
		t.Errorf("examiner track holds %v of speech, played %v", heard, res.Total)
	}
	if s, _ := speechBounds(cand.Samples); abs64(int64(s)-sc.bounds[0][0]) > SampleRate/50 {
		t.Errorf("candidate speech at sample %d, want %d", s, sc.bounds[0][0])
	}
}

// playGate is a Sink that reports when the examiner's playback starts.
type playGate struct {
	Sink
	once    sync.Once
	started chan struct{}
}

func (g *playGate) Play(ctx context.Context, c Clip) (PlayResult, error) {
	g.once.Do(func() { close(g.started) })
	return g.Sink.Play(ctx, c)
}

// gatedSource is a paced microphone stand-in whose scene starts when playback starts: silence
// until then, so the candidate's speech sits at a known point of the examiner's audio however
// long synthesis took.
type gatedSource struct {
	scene []int16
	gate  <-chan struct{}
	out   chan Frame
	done  chan struct{}
	// sceneAt is the source offset (samples) where the scene began, once it has.
	sceneAt atomic.Int64
}

func newGatedSource(scene []int16, gate <-chan struct{}) *gatedSource {
	g := &gatedSource{scene: scene, gate: gate, out: make(chan Frame, 8), done: make(chan struct{})}
	g.sceneAt.Store(-1)
	return g
}

func (g *gatedSource) Frames() <-chan Frame { return g.out }

func (g *gatedSource) Start(ctx context.Context) error {
	go func() {
		defer close(g.out)
		tick := time.NewTicker(FrameDuration)
		defer tick.Stop()
		var off int64
		var scene []int16
		for {
			select {
			case <-ctx.Done():
				return
			case <-g.done:
				return
			case <-tick.C:
			}
			if scene == nil {
				select {
				case <-g.gate:
					scene = g.scene
					g.sceneAt.Store(off)
				default:
				}
			}
			f := make([]int16, FrameSamples)
			if scene != nil {
				if len(scene) == 0 {
					return
				}
				n := copy(f, scene)
				scene = scene[n:]
				if len(scene) == 0 {
					scene = []int16{} // ends after this frame
				}
			}
			select {
			case g.out <- Frame{Samples: f, Offset: off, Captured: time.Now()}:
			case <-ctx.Done():
				return
			case <-g.done:
				return
			}
			off += FrameSamples
		}
	}()
	return nil
}

func (g *gatedSource) Close() error {
	select {
	case <-g.done:
	default:
		close(g.done)
	}
	return nil
}

// TestVoiceBargeInStopsPlayback: the candidate starts speaking 1.5 s into the examiner's line
// and playback stops there. The candidate's audio is placed relative to the start of playback
// (not of the source, which starts before synthesis has produced anything), so where the line
// stopped is compared with where the candidate spoke on one timeline. How fast the stop takes
// effect is measured by BenchmarkBargeInStop, not asserted on the wall clock here.
func TestVoiceBargeInStopsPlayback(t *testing.T) {
	espeak, player := speechOut(t)
	const lead = 1500 * time.Millisecond
	talk := speak16k(t, "Sorry, could you repeat that?")
	sc := buildScene(int(lead.Milliseconds())*SampleRate/1000, talk, 2000)
	sink := &playGate{Sink: player, started: make(chan struct{})}
	src := newGatedSource(sc.samples, sink.started)
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), echoTranscriber("Sorry, could you repeat that?"))
	log := newEventLog()
	v := startVoice(t, src, newTestRecognizer(t, srv), espeak, sink, WithOnEvent(log.add), WithBargeIn(true))
	const text = "Good morning and welcome to the hotel breakfast exam. Please tell me what you would like to eat and drink this morning, and why."
	res, err := v.Speak(context.Background(), text, SpeakOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.PlayedText == text || res.PlayedText == "" || !strings.HasPrefix(text, res.PlayedText) {
		t.Fatalf("barge-in result %+v", res)
	}
	finals := log.wait(t, 1)
	if finals[0].Text != "Sorry, could you repeat that?" || log.count(EventBargeIn) != 1 {
		t.Fatalf("final %q, %d barge-ins", finals[0].Text, log.count(EventBargeIn))
	}
	// On the source timeline: the barge-in is where the candidate's speech begins.
	speechAt := samplesToMs(src.sceneAt.Load() + sc.bounds[0][0])
	var bargeAt int64 = -1
	log.mu.Lock()
	for _, e := range log.events {
		if e.Kind == EventBargeIn {
			bargeAt = e.AtMs
		}
	}
	log.mu.Unlock()
	if abs64(bargeAt-speechAt) > 60 {
		t.Errorf("barge-in at %d ms of the source, the candidate spoke at %d ms", bargeAt, speechAt)
	}
	// In the examiner's audio: not before the candidate spoke (1.5 s in, plus the VAD's 60 ms
	// onset confirmation), and well before the end of the first sentence.
	if res.Played < lead || res.Played > res.Total-time.Second {
		t.Errorf("played %v of %v: want the line stopped where the candidate spoke, %v in", res.Played, res.Total, lead)
	}
	// What the candidate heard is the played share of the first sentence, cut at a word.
	first := SplitSentences(text)[0]
	if want := cutText(first, float64(res.Played)/float64(res.Total)); res.PlayedText == "" || !strings.HasPrefix(first, res.PlayedText) {
		t.Errorf("heard %q, want a prefix of %q like %q", res.PlayedText, first, want)
	}
	t.Logf("heard %q (%v of %v)", res.PlayedText, res.Played, res.Total)
}

// partialsRecognizer streams two interim texts before its final answer.
type partialsRecognizer struct{ Recognizer }

func (p partialsRecognizer) TranscribeWithPartials(ctx context.Context, u Utterance, partial PartialFunc) (Transcript, error) {
	partial(Transcript{Text: "is"})
	partial(Transcript{Text: "is breakfast"})
	return p.Transcribe(ctx, u)
}

func TestVoiceForwardsStreamingPartials(t *testing.T) {
	sc := buildScene(SampleRate, speak16k(t, "Is breakfast included in the price?"), 1000)
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), echoTranscriber("is breakfast included"))
	log := newEventLog()
	v := startVoice(t, NewClipSource(sc.samples, false), partialsRecognizer{newTestRecognizer(t, srv)}, nil, nil, WithOnEvent(log.add))
	log.wait(t, 1)
	v.Close()
	log.mu.Lock()
	defer log.mu.Unlock()
	var partials []string
	for _, e := range log.events {
		if e.Kind == EventPartial {
			if e.Partial.IsFinal {
				t.Error("partial marked final")
			}
			partials = append(partials, e.Partial.Text)
		}
	}
	if strings.Join(partials, "|") != "is|is breakfast" {
		t.Errorf("partials %q (no %q placeholder for a streaming recogniser)", partials, InterimText)
	}
}
