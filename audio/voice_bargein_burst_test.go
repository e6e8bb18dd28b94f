package audio

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
)

// echoCancellerBurst models what Chromium's echo canceller emits when a capture starts during
// the examiner's line: out of digital silence, noise that rises in 40 ms to peakDB (RMS, dBFS)
// and dies away over d.
func echoCancellerBurst(d time.Duration, peakDB float64) []int16 {
	n := int(d.Seconds() * SampleRate)
	rise := int(0.04 * SampleRate)
	peak := 32768 * math.Pow(10, peakDB/20) * math.Sqrt2 // noise's RMS from its amplitude
	rng := rand.New(rand.NewPCG(1, 2))
	s := make([]int16, n)
	for i := range s {
		env := float64(i) / float64(rise)
		if i >= rise {
			env = math.Exp(-5 * float64(i-rise) / float64(n-rise))
		}
		s[i] = int16(peak * env * (2*rng.Float64() - 1) * math.Sqrt(1.5))
	}
	return s
}

// TestEchoBurstIsNoBargeIn: an echo-canceller burst 1.5 s into the examiner's line starts a
// turn in the VAD (it is well above digital silence) but is no evidence of speech: the line
// plays to its end and no barge-in is reported. TestVoiceBargeInStopsPlayback is the same scene
// with speech, which does cut the line.
func TestEchoBurstIsNoBargeIn(t *testing.T) {
	espeak, player := speechOut(t)
	lead := make([]int16, 1500*SampleRate/1000)
	samples := append(append(lead, echoCancellerBurst(250*time.Millisecond, -46)...), make([]int16, 2*SampleRate)...)
	if LevelDB(echoCancellerBurst(250*time.Millisecond, -46)[:int(0.06*SampleRate)]) < -55 {
		t.Fatal("the burst is below the VAD's minimum level: it would test nothing")
	}
	sink := &playGate{Sink: player, started: make(chan struct{})}
	src := newGatedSource(samples, sink.started)
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"), echoTranscriber(""))
	log := newEventLog()
	v := startVoice(t, src, newTestRecognizer(t, srv), espeak, sink, WithOnEvent(log.add), WithBargeIn(true))
	const text = "Good morning and welcome to the hotel breakfast exam. Please tell me what you would like to eat and drink this morning, and why."
	res, err := v.Speak(context.Background(), text, SpeakOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted || log.count(EventBargeIn) != 0 {
		t.Fatalf("an echo-canceller burst cut the examiner: interrupted %v after %v of %v, %d barge-ins, speech started %d times",
			res.Interrupted, res.Played, res.Total, log.count(EventBargeIn), log.count(EventSpeechStarted))
	}
	if log.count(EventSpeechStarted) == 0 {
		t.Fatal("the burst started no turn: the scene does not test the barge-in rule")
	}
}
