package app_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
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
// streaming pocketsphinx and the demo exam's offline examiner: a complete answer ends after the
// short delay, with the examiner's reply made during the wait and reused; a pause after a
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
	defer sphinx.Close()
	src := newPushSource()
	v, err := app.StartVoice(ctx, x, app.VoiceParts{Source: src, Recognizer: sphinx},
		app.WithVoiceAdaptiveEndOfTurn(true), app.WithVoiceLogger(voiceTestLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var mu sync.Mutex
	var obs []*runtime.ObservationPayload
	var segs []*runtime.TranscriptSegmentPayload
	x.Subscribe(runtime.SubscriberFunc(func(ev runtime.Event) {
		p, err := ev.Decode()
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch p := p.(type) {
		case *runtime.ObservationPayload:
			obs = append(obs, p)
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker == "candidate" {
				segs = append(segs, p)
			}
		}
	}))
	drainLevels(v)
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	observed := func(n int) *runtime.ObservationPayload {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			if len(obs) >= n {
				o := obs[n-1]
				mu.Unlock()
				return o
			}
			mu.Unlock()
			if time.Now().After(deadline) {
				t.Fatalf("no observation %d", n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	pushPaced(src, spokenTurn(t, espeak, said[0], 1))
	o := observed(1)
	complete := audio.DefaultCompleteEndpointingDelay.Milliseconds()
	if ms := o.Latency.EndpointingMs; ms < float64(complete) || ms > float64(complete)+2*float64(audio.FrameDuration.Milliseconds()) {
		t.Errorf("a complete answer ended %.0f ms after the speech, want the short delay (%d ms)", ms, complete)
	}
	if st := x.Controller.Speculations(); st.Reused != 1 {
		t.Errorf("speculations %+v: the examiner's reply made during the wait was not reused", st)
	}

	a := spokenTurn(t, espeak, first, 2)
	b := spokenTurn(t, espeak, second, 3)
	pushPaced(src, append(a[:len(a)-audio.SampleRate/5], b...)) // 1.4 s between the halves
	o = observed(2)
	mu.Lock()
	var finals, partials []string
	for _, s := range segs {
		if s.IsFinal {
			finals = append(finals, s.Text)
		} else {
			partials = append(partials, s.Text)
		}
	}
	mu.Unlock()
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
