package audio

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
)

func TestNewVoiceParts(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), echoTranscriber("x"))
	rec := newTestRecognizer(t, srv)
	espeak, err := NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	src := func() Source { return NewClipSource(make([]int16, FrameSamples), false) }
	cases := []struct {
		name            string
		src             Source
		rec             Recognizer
		synth           Synthesizer
		sink            Sink
		ok              bool
		listen, canTalk bool
	}{
		{"listen only", src(), rec, nil, nil, true, true, false},
		{"nothing", nil, nil, nil, nil, false, false, false},
		{"source without recognizer", src(), nil, nil, nil, false, false, false},
		{"recognizer without source", nil, rec, nil, nil, false, false, false},
		{"synthesizer without sink", src(), rec, espeak, nil, false, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := NewVoice(tc.src, tc.rec, tc.synth, tc.sink)
			if !tc.ok {
				if !errors.Is(err, ErrInvalidConfig) {
					t.Fatalf("err %v, want ErrInvalidConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if v.CanListen() != tc.listen || v.CanSpeak() != tc.canTalk || v.Listening() != tc.listen {
				t.Errorf("listen %v speak %v listening %v", v.CanListen(), v.CanSpeak(), v.Listening())
			}
		})
	}
}

// A speak-only voice (no microphone, or no recogniser) still plays the examiner's lines, and
// StopSpeaking cuts one short with what was heard.
func TestSpeakOnlyVoiceAndStopSpeaking(t *testing.T) {
	espeak, player := speechOut(t)
	log := newEventLog()
	v, err := NewVoice(nil, nil, espeak, player, WithOnEvent(log.add))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.CanListen() || !v.CanSpeak() || v.Listening() {
		t.Fatalf("listen %v speak %v", v.CanListen(), v.CanSpeak())
	}
	if err := v.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	const text = "Welcome. This is a practice oral assessment. It has two short scenarios."
	type result struct {
		res SpeakResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := v.Speak(context.Background(), text, SpeakOptions{})
		done <- result{r, err}
	}()
	testutil.Eventually(t, 20*time.Second, func() bool { return v.State() == StateExaminerSpeaking }, "the examiner to start speaking")
	time.Sleep(300 * time.Millisecond) // part of the line plays: the stop cuts it mid-way
	v.StopSpeaking()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	// Stopped before the first sentence was ready (slow synthesis) nothing was heard; else part.
	if !r.res.Interrupted || r.res.PlayedText == text || (r.res.Total > 0 && r.res.Played >= r.res.Total) {
		t.Errorf("stopped line %+v", r.res)
	}
	v.StopSpeaking() // nothing playing: no effect
	r2, err := v.Speak(context.Background(), "Thank you.", SpeakOptions{})
	if err != nil || r2.Interrupted || r2.PlayedText != "Thank you." {
		t.Errorf("next line %+v %v: a stop must not carry over", r2, err)
	}
}

// SetListening(false) keeps frames away from the VAD: no turn, every frame counted ignored.
func TestVoiceSetListeningMutesTheMicrophone(t *testing.T) {
	sc := buildScene(SampleRate, speak16k(t, "Is breakfast included in the price?"), 1000,
		speak16k(t, "Thank you very much."), 1000)
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), echoTranscriber("heard"))
	log := newEventLog()
	src := NewClipSource(sc.samples, false)
	v, err := NewVoice(src, newTestRecognizer(t, srv), nil, nil, WithOnEvent(log.add))
	if err != nil {
		t.Fatal(err)
	}
	v.SetListening(false)
	if v.Listening() {
		t.Fatal("still listening")
	}
	if err := v.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	total := uint64((len(sc.samples) + FrameSamples - 1) / FrameSamples)
	// Every frame passes the loop (the assertions below say how many did not).
	testutil.Poll(10*time.Second, func() bool { st := v.Stats(); return st.Ignored+st.Frames >= total })
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if n := log.count(EventSpeechStarted); n != 0 {
		t.Errorf("%d turns started while muted", n)
	}
	if st := v.Stats(); st.Ignored != total || st.Frames != 0 {
		t.Errorf("stats %+v: all %d frames should have been ignored", st, total)
	}
}

func TestMeterLevel(t *testing.T) {
	cases := []struct{ db, want float64 }{
		{-100, 0}, {-60, 0}, {-30, 0.5}, {-15, 0.75}, {0, 1}, {6, 1}, {math.NaN(), 0},
	}
	for _, tc := range cases {
		if got := MeterLevel(tc.db); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("MeterLevel(%v) = %v, want %v", tc.db, got, tc.want)
		}
	}
}

func TestAddNoiseLevelAndSeed(t *testing.T) {
	for _, db := range []float64{-60, -50, -40, -30} {
		a := make([]int16, 2*SampleRate)
		AddNoise(a, db, 7)
		if got := LevelDB(a); math.Abs(got-db) > 0.3 {
			t.Errorf("noise at %v dBFS measures %.2f dBFS", db, got)
		}
		b := make([]int16, 2*SampleRate)
		AddNoise(b, db, 7)
		c := make([]int16, 2*SampleRate)
		AddNoise(c, db, 8)
		same, differ := true, false
		for i := range a {
			same = same && a[i] == b[i]
			differ = differ || a[i] != c[i]
		}
		if !same || !differ {
			t.Errorf("%v dBFS: same seed same noise %v, other seed other noise %v", db, same, differ)
		}
	}
}

// Scripted speech over a noise floor is still cut into one turn and recognised exactly, and
// a noise floor outside -100..0 dBFS is refused.
func TestSpeakAndRecognizeOverNoise(t *testing.T) {
	testutil.SkipIfShort(t, "pocketsphinx and espeak-ng")
	sp := newTestSphinx(t, rehearsalTurns)
	for _, db := range []float64{-55, -45} {
		for i, turn := range rehearsalTurns[:3] {
			tr, timing, err := SpeakAndRecognize(context.Background(), turn, sp, ScriptedConfig{NoiseDB: db, NoiseSeed: uint64(i)})
			if err != nil {
				t.Fatal(err)
			}
			if want := NormalizeForGrammar(turn); tr.Text != want || timing.Utterances != 1 {
				t.Errorf("%v dBFS: heard %q in %d utterances, want %q", db, tr.Text, timing.Utterances, want)
			}
		}
	}
	for _, bad := range []float64{1, -101} {
		if _, _, err := SpeakAndRecognize(context.Background(), "hello", sp, ScriptedConfig{NoiseDB: bad}); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("noise %v: %v", bad, err)
		}
	}
}

// Recognisers send back arbitrary text and scores; none of it may break the turn detector,
// the heard-text cut or the confidence mapping.
func FuzzLooksUnfinishedAndCutText(f *testing.F) {
	f.Add("I would like a table and", 0.5)
	f.Add("", 0.0)
	f.Add("…", 1.0)
	f.Add("a,  b ,, \"c\"", 0.3)
	f.Fuzz(func(t *testing.T, text string, fraction float64) {
		_ = LooksUnfinished(text)
		cut := cutText(text, fraction)
		if fraction >= 1 && cut != text {
			t.Fatalf("cutText(%q, %v) = %q", text, fraction, cut)
		}
		if fraction < 1 && len(cut) > len(text) {
			t.Fatalf("cutText(%q, %v) = %q is longer than the text", text, fraction, cut)
		}
	})
}

func FuzzSegmentConfidence(f *testing.F) {
	f.Add(-0.1, 0.01)
	f.Add(0.5, -3.0)
	f.Add(math.Inf(-1), 2.0)
	f.Fuzz(func(t *testing.T, avgLogprob, noSpeech float64) {
		c := SegmentConfidence(avgLogprob, noSpeech)
		if math.IsNaN(c) || c < 0 || c > 1 {
			t.Fatalf("SegmentConfidence(%v, %v) = %v", avgLogprob, noSpeech, c)
		}
	})
}
