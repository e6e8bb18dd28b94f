package voicepath

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// TestTimings: a spoken turn's reply is timed once, at its first line, with every stage in
// order from the speech end the endpointer saw; the reply's later lines and lines that answer
// no turn (the opening) are not timed.
func TestTimings(t *testing.T) {
	got := make(chan Timing, 4)
	c := newCtrl(exam(t, ""))
	p, _ := newPath(t, c, WithTimings(func(tm Timing) { got <- tm }))

	p.Deliver(event(t, 1, &runtime.SpokenPayload{Text: "Welcome."})) // the opening: no turn
	testutil.Recv(t, c.done, 10*time.Second, "the opening said")

	decided := time.Now()
	p.timer.turn(audio.FinalTranscript{Transcript: audio.Transcript{Text: "a room for two"}, Utterance: audio.Utterance{StartMs: 1000, EndMs: 2200, DecidedMs: 2450, DecidedAt: decided}}, "a room for two")
	p.Deliver(event(t, 2, &runtime.ObservationPayload{NodeID: "n"}))
	p.Deliver(event(t, 3, &runtime.SpokenPayload{Text: "Thank you."}))
	p.Deliver(event(t, 4, &runtime.SpokenPayload{Text: "And when do you arrive?"}))
	tm := testutil.Recv(t, got, 10*time.Second, "the reply's timing")
	if tm.Text != "a room for two" {
		t.Errorf("timed turn %q", tm.Text)
	}
	if want := decided.Add(-250 * time.Millisecond); !tm.SpeechEnd.Equal(want) {
		t.Errorf("speech end %v, want the decision less the endpointing delay, %v", tm.SpeechEnd, want)
	}
	prev := tm.SpeechEnd
	for _, s := range Stages() {
		at := tm.At(s)
		if at.IsZero() || at.Before(prev) {
			t.Errorf("stage %s at %v, before the previous stage (%v) or missing", s, at, prev)
		}
		if ms, ok := tm.Since(s); !ok || ms < 0 {
			t.Errorf("stage %s: %v ms since the speech end (ok %v)", s, ms, ok)
		}
		prev = at
	}
	testutil.Recv(t, c.done, 10*time.Second, "the reply said")
	select {
	case extra := <-got:
		t.Errorf("a second timing for one turn: %+v", extra)
	default:
	}
}

// TestTimingsCollect: Timings keeps each stage a reply reached, in ms since its speech end,
// and leaves out the stages it did not reach.
func TestTimingsCollect(t *testing.T) {
	end := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	var tl Timings
	tl.Add(Timing{SpeechEnd: end, Closed: end.Add(260 * time.Millisecond), FirstFrame: end.Add(270 * time.Millisecond)})
	tl.Add(Timing{SpeechEnd: end, Closed: end.Add(160 * time.Millisecond)})
	tl.Add(Timing{Closed: end}) // no speech end: nothing to count from
	for _, tc := range []struct {
		s    Stage
		want []float64
	}{{StageClosed, []float64{260, 160}}, {StageFirstFrame, []float64{270}}, {StageFirstPacket, nil}} {
		if got := tl.Of(tc.s); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.s, got, tc.want)
		}
	}
}

// warmSynth is espeak-ng that says when it was warmed.
type warmSynth struct {
	audio.Synthesizer
	warmed chan struct{}
}

func (w *warmSynth) Warm(context.Context) error { w.warmed <- struct{}{}; return nil }

// TestWarmAtStart: the path warms its providers when it starts, before any line is said.
func TestWarmAtStart(t *testing.T) {
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Skipf("espeak-ng: %v", err)
	}
	w := &warmSynth{Synthesizer: espeak, warmed: make(chan struct{}, 1)}
	p, err := New(newCtrl(exam(t, "")), Parts{Synthesizer: w, Sink: newClockSink()}, WithLogger(testutil.Logger(t, -4)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	testutil.Recv(t, w.warmed, 10*time.Second, "the synthesizer warmed at start")
}
