package app_test

import (
	"context"
	"testing"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/openaitest"
)

// TestVoiceSureAnswerOnTheOpenAIWire: with a recogniser that reports its confidence (Whisper's
// verbose_json on the OpenAI-compatible wire), a complete answer recognised with high
// confidence ends after the shortest wait (audio.DefaultSureEndpointingDelay), and the
// examiner's reply made during it is reused; the same confidence never shortens the wait after
// a trailing word: "Because, [pause] …" stays one turn.
func TestVoiceSureAnswerOnTheOpenAIWire(t *testing.T) {
	ctx := context.Background()
	x := apptest.OpenExam(ctx, t, app.Options{DataDir: t.TempDir()})
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	said := apptest.Rehearsal(t).Said()
	const because, reason = "Because,", "most of our guests leave early for the conference."
	// The transcription stand-in as a confident Whisper answers: avg_logprob −0.05 and
	// no_speech_prob 0.01 (confidence 0.94).
	whisper := &openaitest.Answers{AvgLogprob: -0.05, NoSpeechProb: 0.01}
	answer := spokenTurn(t, espeak, said[0], 1)
	whisper.Add(said[0], answer, audio.SampleRate)
	a := spokenTurn(t, espeak, because, 2)
	b := spokenTurn(t, espeak, reason, 3)
	whisper.Add(because, a, audio.SampleRate)
	whisper.Add(because+" "+reason, append(append([]int16(nil), a...), b...), audio.SampleRate)
	srv := openaitest.New(t, openaitest.WithTranscriber(whisper.Transcribe))
	rec, err := audio.NewOpenAIRecognizer(srv.URL(), "test-key", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	src, w := startAdaptiveVoice(ctx, t, x, rec)

	pushPaced(src, answer)
	o := w.observed(1)
	sure := audio.DefaultSureEndpointingDelay.Milliseconds()
	if ms := o.Latency.EndpointingMs; ms < float64(sure) || ms > float64(sure)+2*float64(audio.FrameDuration.Milliseconds()) {
		t.Errorf("a sure answer ended %.0f ms after the speech, want the shortest wait (%d ms)", ms, sure)
	}
	if st := x.Controller.Speculations(); st.Reused != 1 {
		t.Errorf("speculations %+v: the examiner's reply made during the wait was not reused", st)
	}

	pushPaced(src, append(a[:len(a)-audio.SampleRate/5], b...)) // 1.4 s after "Because,"
	w.observed(2)
	finals, _ := w.said()
	if want := because + " " + reason; len(finals) != 2 || finals[1] != want {
		t.Fatalf("final turns %q: want the second to be %q (held through the pause after %q)", finals, want, because)
	}
}
