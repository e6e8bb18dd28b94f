package app_test

import (
	"context"
	"fmt"
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

// pushPaced delivers samples in real time, 20 ms a frame, as a microphone does.
func pushPaced(src *pushSource, samples []int16) {
	next := time.Now()
	for off := 0; off < len(samples); off += audio.FrameSamples {
		src.push(samples[off:min(off+audio.FrameSamples, len(samples))])
		next = next.Add(audio.FrameDuration)
		time.Sleep(time.Until(next))
	}
}

// TestVoiceAdaptiveEndOfTurnOnTheMic: the local microphone path with the adaptive end of turn
// (what `examtui run --mic` uses). Real espeak-ng speech in real time through the VAD, the
// streaming pocketsphinx and the demo exam's offline examiner: a complete answer of four words
// or more ends after the shortest wait, or the candidate's learnt wait once longer (the answer
// pauses about 160 ms after "Hello,", and the candidate going on teaches that pause), with the
// examiner's reply made during the wait and reused; a pause after a
// trailing "or" is held, so the two halves are one turn.
func TestVoiceAdaptiveEndOfTurnOnTheMic(t *testing.T) {
	ctx := context.Background()
	x := apptest.OpenExam(ctx, t, app.Options{DataDir: t.TempDir()})
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	first := "We could open a second buffet line, or"
	second := "another way is a grab-and-go counter."
	said := apptest.Rehearsal(t).Said()
	sphinx, err := audio.NewSphinx(append([]string{first}, said...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sphinx.Close() })
	src, w, v := startAdaptiveVoice(ctx, t, x, sphinx)
	pushPaced(src, spokenTurn(t, espeak, said[0], 1))
	o := w.observed(1)
	learnt := v.Audio().Stats().LearnedWait
	if learnt <= audio.DefaultSureEndpointingDelay || learnt > audio.DefaultCompleteEndpointingDelay {
		t.Errorf("learnt wait %v: the pause after %q was not learnt", learnt, "Hello,")
	}
	wait := learnt.Milliseconds()
	if ms := o.Latency.EndpointingMs; ms < float64(wait) || ms > float64(wait)+2*float64(audio.FrameDuration.Milliseconds()) {
		t.Errorf("a complete answer ended %.0f ms after the speech, want the candidate's learnt wait (%d ms)", ms, wait)
	}
	if st := x.Controller.Speculations(); st.Reused != 1 {
		t.Errorf("speculations %+v: the examiner's reply made during the wait was not reused", st)
	}

	a := spokenTurn(t, espeak, first, 2)
	b := spokenTurn(t, espeak, second, 3)
	pushPaced(src, append(a[:len(a)-audio.SampleRate/5], b...)) // 1.4 s between the halves
	o = w.observed(2)
	finals, partials := w.said()
	want := audio.NormalizeForGrammar(first + " " + second)
	if len(finals) != 2 || finals[1] != want {
		t.Fatalf("final turns %q: want the second to be %q (held through the pause after %q)", finals, want, "or")
	}
	trailing := false
	for _, p := range partials {
		trailing = trailing || strings.HasSuffix(p, " or")
	}
	if !trailing {
		t.Errorf("interim transcripts %q: none shows the pause's words ending in %q", partials, "or")
	}
	if o.Turn != 2 {
		t.Errorf("observation of turn %d", o.Turn)
	}
}

// startAdaptiveVoice starts x's voice on a pushed microphone with rec and the adaptive end of
// turn, watches its events and starts the exam.
func startAdaptiveVoice(ctx context.Context, t *testing.T, x *app.Exam, rec audio.Recognizer) (*pushSource, *voiceWatch, *app.Voice) {
	t.Helper()
	src := newPushSource()
	v, err := app.StartVoice(ctx, x, app.VoiceParts{Source: src, Recognizer: rec},
		app.WithVoiceAdaptiveEndOfTurn(true), app.WithVoiceLogger(voiceTestLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	w := watchVoice(t, x)
	drainLevels(v)
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return src, w, v
}

// voiceWatch keeps what the exam's events say of the spoken turns: the observations and the
// candidate's transcript segments (final and interim).
type voiceWatch struct {
	t    *testing.T
	mu   sync.Mutex
	obs  []*runtime.ObservationPayload
	segs []*runtime.TranscriptSegmentPayload
}

func watchVoice(t *testing.T, x *app.Exam) *voiceWatch {
	w := &voiceWatch{t: t}
	x.Subscribe(runtime.SubscriberFunc(func(ev runtime.Event) {
		p, err := ev.Decode()
		if err != nil {
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		switch p := p.(type) {
		case *runtime.ObservationPayload:
			w.obs = append(w.obs, p)
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker == "candidate" {
				w.segs = append(w.segs, p)
			}
		}
	}))
	return w
}

// observed waits for the nth observation.
func (w *voiceWatch) observed(n int) *runtime.ObservationPayload {
	w.t.Helper()
	var o *runtime.ObservationPayload
	testutil.Eventually(w.t, 30*time.Second, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.obs) >= n {
			o = w.obs[n-1]
		}
		return o != nil
	}, fmt.Sprintf("observation %d", n))
	return o
}

// said is the candidate's final turns and interim transcripts so far.
func (w *voiceWatch) said() (finals, partials []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.segs {
		if s.IsFinal {
			finals = append(finals, s.Text)
		} else {
			partials = append(partials, s.Text)
		}
	}
	return finals, partials
}
