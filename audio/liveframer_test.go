package audio

import (
	"math"
	"testing"
	"time"
)

// packet is one run of audio a live source delivers: after is the wall time since the
// previous packet arrived.
type packet struct {
	after   time.Duration
	samples []int16
}

// feedFramer plays packets into a framer on an injected clock, ticking every 20 ms in between
// as the room source does, and then ticks on for tail.
func feedFramer(t *testing.T, l *LiveFramer, t0 time.Time, rate int, pkts []packet, tail time.Duration) (frames []Frame, end time.Time) {
	t.Helper()
	now := t0
	lastTick := t0
	tickTo := func(until time.Time) {
		for !lastTick.Add(FrameDuration).After(until) {
			lastTick = lastTick.Add(FrameDuration)
			frames = append(frames, l.Tick(lastTick)...)
		}
	}
	for _, p := range pkts {
		now = now.Add(p.after)
		tickTo(now)
		out, err := l.Write(p.samples, rate, now)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, out...)
	}
	end = now.Add(tail)
	tickTo(end)
	return frames, end
}

// steady splits s into 20 ms packets arriving every 20 ms.
func steady(s []int16, rate int) []packet {
	n := rate / 50
	var out []packet
	for i := 0; i < len(s); i += n {
		out = append(out, packet{after: FrameDuration, samples: s[i:min(i+n, len(s))]})
	}
	return out
}

func TestLiveFramerTimeline(t *testing.T) {
	voice := sine(220, SampleRate, SampleRate/2, 8000) // 500 ms
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		pkts []packet
		tail time.Duration
		// wantMs is the timeline length (frames × 20 ms) at the end, within one frame plus the
		// tolerance; wantMissing the least number of Missing frames.
		wantMs      int64
		wantMissing int
		maxMissing  int
	}{
		{name: "continuous audio never gains missing frames", pkts: steady(voice, SampleRate), tail: 0,
			wantMs: 500, maxMissing: 0},
		{name: "sender stops right after speech: the silence is counted on the clock",
			pkts: steady(voice, SampleRate), tail: time.Second, wantMs: 1500, wantMissing: 45, maxMissing: 50},
		{name: "jitter within the tolerance is not a gap",
			pkts: []packet{{20 * time.Millisecond, voice[:320]}, {80 * time.Millisecond, voice[320:640]},
				{0, voice[640:960]}, {0, voice[960:1280]}, {20 * time.Millisecond, voice[1280:1600]}},
			wantMs: 100, maxMissing: 0},
		{name: "Opus DTX: one packet every 400 ms keeps wall-clock time",
			pkts: func() []packet {
				p := steady(voice, SampleRate)
				for range 10 {
					p = append(p, packet{after: 400 * time.Millisecond, samples: make([]int16, 320)})
				}
				return p
			}(), wantMs: 4500, wantMissing: 180, maxMissing: 200},
		{name: "a partial frame is completed with silence when the sender stops",
			pkts: []packet{{20 * time.Millisecond, voice[:480]}}, tail: 200 * time.Millisecond,
			wantMs: 220, wantMissing: 5, maxMissing: 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLiveFramer(0)
			if err != nil {
				t.Fatal(err)
			}
			frames, _ := feedFramer(t, l, t0, SampleRate, tc.pkts, tc.tail)
			missing := 0
			for i, f := range frames {
				if len(f.Samples) != FrameSamples || f.Offset != int64(i*FrameSamples) {
					t.Fatalf("frame %d: %d samples at %d, want %d at %d", i, len(f.Samples), f.Offset, FrameSamples, i*FrameSamples)
				}
				if f.Missing {
					missing++
					if LevelDB(f.Samples) > -100 {
						t.Fatalf("missing frame %d is not silent", i)
					}
				}
			}
			gotMs := int64(len(frames)) * 20
			slack := DefaultGapTolerance.Milliseconds() + 20
			if gotMs > tc.wantMs || gotMs < tc.wantMs-slack {
				t.Errorf("timeline %d ms, want %d ms (−%d ms)", gotMs, tc.wantMs, slack)
			}
			if missing < tc.wantMissing || missing > tc.maxMissing {
				t.Errorf("%d missing frames, want %d..%d", missing, tc.wantMissing, tc.maxMissing)
			}
		})
	}
}

func TestLiveFramerNothingBeforeFirstAudio(t *testing.T) {
	l, err := NewLiveFramer(0)
	if err != nil {
		t.Fatal(err)
	}
	if f := l.Tick(time.Now().Add(time.Hour)); len(f) != 0 {
		t.Fatalf("%d frames before any audio", len(f))
	}
}

func TestNewLiveFramerRejectsBadTolerance(t *testing.T) {
	for _, d := range []time.Duration{-time.Millisecond, time.Millisecond, time.Minute} {
		if _, err := NewLiveFramer(d); err == nil {
			t.Errorf("tolerance %v accepted", d)
		}
	}
	l, _ := NewLiveFramer(0)
	if _, err := l.Write([]int16{1, 2}, 0, time.Now()); err == nil {
		t.Error("a rate of 0 Hz accepted")
	}
}

// TestLiveFramerResamples48kWithoutClicks feeds a 48 kHz tone in 10 ms chunks, as a decoder at
// the Opus rate delivers it: the stateful resampler must give the same signal as converting the
// whole tone at once, with no discontinuity at the chunk boundaries (a per-chunk one-shot
// resample restarts its filter on silence every chunk, a click every 10 ms).
func TestLiveFramerResamples48kWithoutClicks(t *testing.T) {
	const hz = 440.0
	in := sine(hz, 48000, 48000, 12000) // 1 s
	l, err := NewLiveFramer(0)
	if err != nil {
		t.Fatal(err)
	}
	frames, _ := feedFramer(t, l, time.Now(), 48000, steady(in, 48000), 0)
	var got []int16
	for _, f := range frames {
		if f.Missing {
			t.Fatal("a missing frame inside continuous 48 kHz audio")
		}
		got = append(got, f.Samples...)
	}
	if len(got) < 15000 {
		t.Fatalf("%d samples out of 1 s at 48 kHz", len(got))
	}
	// The largest step between neighbouring samples of the tone at 16 kHz is about
	// amp·2π·f/fs; a click is many times that.
	maxStep := 12000 * 2 * math.Pi * hz / SampleRate * 1.1
	for i := 200; i < len(got)-1; i++ { // skip the filter's run-in
		if d := math.Abs(float64(got[i+1]) - float64(got[i])); d > maxStep {
			t.Fatalf("step of %.0f at sample %d (chunk boundary every 160): a click (max %.0f)", d, i, maxStep)
		}
	}
	whole, err := NewResampler(48000, SampleRate)
	if err != nil {
		t.Fatal(err)
	}
	ref := whole.Process(in, nil)
	for i := range min(len(ref), len(got)) {
		if d := int(ref[i]) - int(got[i]); d > 1 || d < -1 {
			t.Fatalf("sample %d: %d streamed, %d whole", i, got[i], ref[i])
		}
	}
}

// TestEndpointerEndsTurnOnTheClock is the endpointer on an injected clock, fed as the room
// feeds it: speech in 20 ms packets, then the sender stops (muted, left, the file ended) or
// falls back to DTX packets every 400 ms. The turn must end MinEndpointingDelay after the last
// speech, give or take the gap tolerance, not when more audio happens to arrive.
func TestEndpointerEndsTurnOnTheClock(t *testing.T) {
	speech := speak16k(t, "Most guests are business travellers.")
	_, end := speechBounds(speech)
	lastVoiced := time.Duration(end) * time.Second / SampleRate
	lead := make([]int16, SampleRate/2) // half a second of room tone before the answer
	for i := range lead {
		lead[i] = int16(i%7 - 3)
	}
	cases := []struct {
		name string
		tail []packet
	}{
		{name: "sender stops right after speech"},
		{name: "DTX sparse packets", tail: func() []packet {
			var p []packet
			for range 10 {
				p = append(p, packet{after: 400 * time.Millisecond, samples: make([]int16, 320)})
			}
			return p
		}()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultEndpointConfig()
			ep, err := NewEndpointer(cfg)
			if err != nil {
				t.Fatal(err)
			}
			l, err := NewLiveFramer(0)
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
			pkts := append(steady(append(append([]int16(nil), lead...), speech...), SampleRate), tc.tail...)
			frames, _ := feedFramer(t, l, t0, SampleRate, pkts, 3*time.Second)
			var got *Utterance
			var at time.Time
			for _, f := range frames {
				if r := ep.Push(f); r.Utterance != nil && got == nil {
					got, at = r.Utterance, f.Captured
				}
			}
			if got == nil {
				t.Fatal("the turn never ended")
			}
			// The speech ends at t0 + lead + lastVoiced (packets arrive in real time).
			spokeUntil := t0.Add(FrameDuration + time.Second/2 + lastVoiced)
			wait := at.Sub(spokeUntil)
			lo := cfg.MinEndpointingDelay - 2*FrameDuration
			hi := cfg.MinEndpointingDelay + DefaultGapTolerance + 3*FrameDuration
			if wait < lo || wait > hi {
				t.Errorf("turn ended %v after the last speech, want %v..%v", wait, lo, hi)
			}
			t.Logf("turn of %v decided %v after the last voiced sample", got.Duration(), wait)
		})
	}
}
