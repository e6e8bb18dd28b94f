package openaitest_test

import (
	"math"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/sashabaranov/go-openai"
)

// tone is d of a loud 440 Hz tone at 16 kHz, after 300 ms of silence.
func tone(d time.Duration) []int16 {
	out := make([]int16, 16000*3/10)
	for i := range int(d.Seconds() * 16000) {
		out = append(out, int16(8000*math.Sin(2*math.Pi*440*float64(i)/16000)))
	}
	return out
}

func wav(pcm []int16) []byte {
	p := &openaitest.PCM{SampleRate: 16000, Channels: 1, Samples: pcm}
	return append(openaitest.WAVHeader(16000, 1, 2*len(pcm)), p.Bytes()...)
}

// Answers tells spoken answers apart by their voiced length, and scores them as asked.
func TestAnswers(t *testing.T) {
	a := &openaitest.Answers{AvgLogprob: -0.05, NoSpeechProb: 0.01}
	a.Add("short", tone(600*time.Millisecond), 16000)
	a.Add("long", tone(2*time.Second), 16000)
	for _, tc := range []struct {
		name string
		pcm  []int16
		want string
	}{
		{"the short one", tone(600 * time.Millisecond), "short"},
		{"the long one", tone(2 * time.Second), "long"},
		{"a pause within the long one", tone(1500 * time.Millisecond), "long"},
		{"nearer the short one", tone(time.Second), "short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := a.Transcribe(&openaitest.TranscriptionRequest{File: wav(tc.pcm)})
			if b.Transcript.Text != tc.want {
				t.Fatalf("transcribed %q, want %q", b.Transcript.Text, tc.want)
			}
			if len(b.Transcript.Segments) != 1 || b.Transcript.Segments[0].AvgLogprob != -0.05 || b.Transcript.Segments[0].NoSpeechProb != 0.01 {
				t.Errorf("segments %+v", b.Transcript.Segments)
			}
		})
	}
	if got := openaitest.VoicedLength(tone(time.Second), 16000); got != time.Second {
		t.Errorf("voiced length %v, want 1s", got)
	}
	if b := a.Transcribe(&openaitest.TranscriptionRequest{File: []byte("not a wav")}); b.StatusCode != 400 {
		t.Errorf("not a WAV: %+v", b)
	}
}

// Answers reads an answer said with a pause at its comma, asked for the words before the
// pause, as those words with their comma, as Whisper does; an answer whose pauses and marks do
// not pair up has no parts.
func TestAnswersReadAPart(t *testing.T) {
	gap := make([]int16, 16000/5) // a 200 ms pause
	a := &openaitest.Answers{}
	a.Add("We could open a second buffet line, or a grab-and-go counter.",
		append(append(tone(1800*time.Millisecond), gap...), tone(1500*time.Millisecond)...), 16000)
	a.Add("Yes, no, maybe.", append(append(tone(400*time.Millisecond), gap...), tone(900*time.Millisecond)...), 16000)
	for _, tc := range []struct {
		name string
		pcm  []int16
		want string
	}{
		{"the words before the pause", tone(1800 * time.Millisecond), "We could open a second buffet line,"},
		{"the whole answer", append(append(tone(1800*time.Millisecond), gap...), tone(1500*time.Millisecond)...),
			"We could open a second buffet line, or a grab-and-go counter."},
		{"two marks, one pause: no part", tone(400 * time.Millisecond), "Yes, no, maybe."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := a.Transcribe(&openaitest.TranscriptionRequest{File: wav(tc.pcm)})
			if b.Transcript.Text != tc.want {
				t.Fatalf("transcribed %q, want %q", b.Transcript.Text, tc.want)
			}
		})
	}
}

// WithSpeechDelay holds the default speech back by the delay, on top of the synthesis.
func TestSpeechDelay(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	const delay = 300 * time.Millisecond
	req := openai.CreateSpeechRequest{Model: openai.TTSModel1, Input: "Yes.", Voice: openai.VoiceAlloy, ResponseFormat: openai.SpeechResponseFormatWav}
	start := time.Now()
	speak(t, openaitest.New(t, openaitest.WithSpeechDelay(delay)), req)
	if took := time.Since(start); took < delay {
		t.Errorf("speech answered after %v, want at least %v", took, delay)
	}
}
