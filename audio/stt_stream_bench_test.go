package audio

import (
	"context"
	"testing"
	"time"
)

// BenchmarkRecognitionAtEndpoint is the recogniser's share of the reply latency: the wall time
// from the endpoint to the transcript for one espeak-ng turn of the rehearsal script (3.7 s of
// speech) on the pocketsphinx grammar. "one-shot" starts pocketsphinx_continuous on the whole
// utterance at the endpoint (the path before streaming, and still the fallback); "streaming"
// has fed the long-lived recogniser the turn as it was spoken (untimed, paced at 10× real time
// with a 200 ms settle, which a live turn always gives it) and times only the Cut.
//
//	go test -run XXX -bench BenchmarkRecognitionAtEndpoint -benchtime 20x ./audio/
func BenchmarkRecognitionAtEndpoint(b *testing.B) {
	text := "Most guests at that time are business travellers who are in a hurry."
	speech := speak16k(b, text)
	want := NormalizeForGrammar(text)
	b.Run("one-shot", func(b *testing.B) {
		sp := newTestSphinx(b, rehearsalTurns)
		u := Utterance{Samples: speech, EndMs: int64(len(speech)) * 1000 / SampleRate}
		for b.Loop() {
			tr, err := sp.Transcribe(context.Background(), u)
			if err != nil || tr.Text != want {
				b.Fatalf("heard %q, %v", tr.Text, err)
			}
		}
	})
	b.Run("streaming", func(b *testing.B) {
		_, st := newTestStream(b, rehearsalTurns)
		frame := 10 * FrameSamples
		for b.Loop() {
			b.StopTimer()
			st.Reset()
			for i := 0; i < len(speech); i += frame {
				if err := st.Feed(speech[i:min(i+frame, len(speech))]); err != nil {
					b.Fatal(err)
				}
				time.Sleep(FrameDuration) // 10 frames per 20 ms: 10× real time
			}
			time.Sleep(200 * time.Millisecond)
			b.StartTimer()
			tr, err := st.Final(context.Background())
			if err != nil || tr.Text != want {
				b.Fatalf("heard %q, %v", tr.Text, err)
			}
		}
	})
}
