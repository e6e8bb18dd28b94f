package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/openaitest"
)

// TestVoiceSureAnswerOnTheOpenAIWire: on the OpenAI-compatible wire, a complete answer of four
// words or more ends after the shortest wait (audio.DefaultSureEndpointingDelay) whatever score
// Whisper gives a clean answer, with the examiner's reply made during the wait reused; an
// answer Whisper itself flags as a failed recognition (avg_logprob under -1, or no_speech_prob
// over 0.6) waits the complete-answer delay. Neither ever shortens the wait after a trailing
// word: "Because, [pause] …" stays one turn.
func TestVoiceSureAnswerOnTheOpenAIWire(t *testing.T) {
	cases := []struct {
		name              string
		logprob, noSpeech float64 // zero: the stand-in's defaults, -0.25 and 0.02
		want              time.Duration
	}{
		{"confident", -0.05, 0.01, audio.DefaultSureEndpointingDelay},
		{"typical", 0, 0, audio.DefaultSureEndpointingDelay},
		{"failed decode", -1.2, 0.02, audio.DefaultCompleteEndpointingDelay},
		{"no speech", -0.3, 0.7, audio.DefaultCompleteEndpointingDelay},
	}
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	// A fluent answer, with no pause inside it that would teach a longer wait.
	const fluent = "The buffet opens at seven every morning."
	const because, reason = "Because,", "most of our guests leave early for the conference."
	answer := spokenTurn(t, espeak, fluent, 1)
	a := spokenTurn(t, espeak, because, 2)
	b := spokenTurn(t, espeak, reason, 3)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			x := apptest.OpenExam(ctx, t, app.Options{DataDir: t.TempDir()})
			whisper := &openaitest.Answers{AvgLogprob: tc.logprob, NoSpeechProb: tc.noSpeech}
			whisper.Add(fluent, answer, audio.SampleRate)
			whisper.Add(because, a, audio.SampleRate)
			whisper.Add(because+" "+reason, append(append([]int16(nil), a...), b...), audio.SampleRate)
			srv := openaitest.New(t, openaitest.WithTranscriber(whisper.Transcribe))
			rec, err := audio.NewOpenAIRecognizer(srv.URL(), "test-key", srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			src, w, v := startAdaptiveVoice(ctx, t, x, rec)

			pushPaced(src, answer)
			o := w.observed(1)
			want := tc.want.Milliseconds()
			if ms := o.Latency.EndpointingMs; ms < float64(want) || ms > float64(want)+2*float64(audio.FrameDuration.Milliseconds()) {
				t.Errorf("the answer ended %.0f ms after the speech, want %d ms", ms, want)
			}
			if st := x.Controller.Speculations(); st.Reused != 1 {
				t.Errorf("speculations %+v: the examiner's reply made during the wait was not reused", st)
			}
			if st := v.Audio().Stats(); st.PausesLearned != 0 {
				t.Errorf("a fluent answer taught a wait: %+v", st)
			}

			pushPaced(src, append(a[:len(a)-audio.SampleRate/5], b...)) // 1.4 s after "Because,"
			w.observed(2)
			finals, _ := w.said()
			if want := because + " " + reason; len(finals) != 2 || finals[1] != want {
				t.Fatalf("final turns %q: want the second to be %q (held through the pause after %q)", finals, want, because)
			}
		})
	}
}
