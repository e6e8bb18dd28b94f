package audio

import (
	"testing"
	"time"
)

// runEndpointer feeds a signal through an endpointer and collects the utterances.
func runEndpointer(t testing.TB, cfg EndpointConfig, s []int16) []*Utterance {
	t.Helper()
	ep, err := NewEndpointer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Utterance
	for _, f := range frames(s) {
		if r := ep.Push(f); r.Utterance != nil {
			out = append(out, r.Utterance)
		}
	}
	if u := ep.Flush(); u != nil {
		out = append(out, u)
	}
	return out
}

func TestEndpointerOnEspeakSpeech(t *testing.T) {
	greet := speak16k(t, "Good morning, I would like")
	rest := speak16k(t, "a table for two by the window.")
	ask := speak16k(t, "Is breakfast included in the price?")
	thanks := speak16k(t, "Thank you very much.")
	// Expected turns, as indexes into the scene's clips: clips joined by a short pause are one turn.
	cases := []struct {
		name  string
		parts []any
		turns [][2]int
		noise func(n int) []float64
		db    float64 // noise level, for the ground truth
	}{
		{"clean, 300 ms pause inside a sentence", []any{greet, 300, rest, 1500, ask, 1500, thanks, 1000}, [][2]int{{0, 1}, {2, 2}, {3, 3}}, nil, 0},
		{"white noise -40 dBFS", []any{greet, 300, rest, 1500, ask, 1500, thanks, 1000}, [][2]int{{0, 1}, {2, 2}, {3, 3}},
			func(n int) []float64 { return whiteNoise(n, -40, 7) }, -40},
		{"pink noise -35 dBFS", []any{greet, 300, rest, 1500, ask, 1000}, [][2]int{{0, 1}, {2, 2}},
			func(n int) []float64 { return pinkNoise(n, -35, 9) }, -35},
		{"pause above the min delay splits", []any{ask, 700, thanks, 1000}, [][2]int{{0, 0}, {1, 1}}, nil, 0},
		{"450 ms pause stays one turn", []any{greet, 450, rest, 1000}, [][2]int{{0, 1}}, nil, 0},
	}
	const startTol, endTol = 60, 120 // ms
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := buildScene(SampleRate, tc.parts...) // one second of lead-in to learn the floor
			s, truth := sc.samples, sc.bounds
			if tc.noise != nil {
				s = mix(s, tc.noise(len(s)))
				truth = sc.audibleBounds(tc.db)
			}
			got := runEndpointer(t, EndpointConfig{}, s)
			if len(got) != len(tc.turns) {
				for _, u := range got {
					t.Logf("utterance %d..%d ms", u.StartMs, u.EndMs)
				}
				t.Fatalf("got %d utterances, want %d", len(got), len(tc.turns))
			}
			for i, turn := range tc.turns {
				wantStart := samplesToMs(truth[turn[0]][0])
				wantEnd := samplesToMs(truth[turn[1]][1])
				u := got[i]
				t.Logf("turn %d: got %d..%d ms, want %d..%d ms, decided at %d ms", i, u.StartMs, u.EndMs, wantStart, wantEnd, u.DecidedMs)
				if d := u.StartMs - wantStart; d < -startTol || d > startTol {
					t.Errorf("turn %d starts at %d ms, want %d±%d", i, u.StartMs, wantStart, startTol)
				}
				if d := u.EndMs - wantEnd; d < -endTol || d > endTol {
					t.Errorf("turn %d ends at %d ms, want %d±%d", i, u.EndMs, wantEnd, endTol)
				}
				lag := time.Duration(u.DecidedMs-u.EndMs) * time.Millisecond
				if lag < u.Delay || lag > u.Delay+FrameDuration {
					t.Errorf("turn %d decided %v after speech ended, want within [%v, %v]", i, lag, u.Delay, u.Delay+FrameDuration)
				}
				if u.SamplesStartMs > u.StartMs || int64(len(u.Samples)) < msToSamples(u.EndMs-u.StartMs) {
					t.Errorf("turn %d samples from %d ms (%d samples) do not cover the speech", i, u.SamplesStartMs, len(u.Samples))
				}
			}
		})
	}
}

func TestEndpointerHoldWaitsForMaxDelay(t *testing.T) {
	a := speak16k(t, "Good morning, I would like")
	b := speak16k(t, "a table for two by the window.")
	sc := buildScene(SampleRate, a, 1500, b, 3500)
	ep, err := NewEndpointer(EndpointConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var got []*Utterance
	paused := 0
	for _, f := range frames(sc.samples) {
		r := ep.Push(f)
		if r.Paused {
			paused++
			if paused == 1 {
				ep.Hold(true) // a turn detector judged "I would like" unfinished
			}
		}
		if r.Utterance != nil {
			got = append(got, r.Utterance)
		}
	}
	if len(got) != 1 {
		t.Fatalf("got %d utterances, want 1 held across the 1.5 s pause", len(got))
	}
	if got[0].Delay != 500*time.Millisecond {
		t.Errorf("final delay %v: the hold must end when speech resumes", got[0].Delay)
	}
	if want := samplesToMs(sc.bounds[1][1]); abs64(got[0].EndMs-want) > 120 {
		t.Errorf("ends at %d ms, want %d", got[0].EndMs, want)
	}
}

func TestEndpointerNoSpeechInNoise(t *testing.T) {
	n := 10 * SampleRate
	for _, noise := range [][]float64{whiteNoise(n, -40, 3), pinkNoise(n, -30, 4)} {
		if got := runEndpointer(t, EndpointConfig{}, mix(make([]int16, n), noise)); len(got) != 0 {
			t.Errorf("noise produced %d utterances, first %d..%d ms", len(got), got[0].StartMs, got[0].EndMs)
		}
	}
}

func TestEndpointConfigValidation(t *testing.T) {
	cases := []struct {
		name string
		mut  func(*EndpointConfig)
	}{
		{"max below min", func(c *EndpointConfig) { c.MaxEndpointingDelay = 100 * time.Millisecond }},
		{"min below a frame", func(c *EndpointConfig) { c.MinEndpointingDelay = time.Millisecond }},
		{"negative pre-roll", func(c *EndpointConfig) { c.PreRoll = -1 }},
		{"release above onset", func(c *EndpointConfig) { c.VAD.ReleaseMarginDB = 20 }},
		{"positive min level", func(c *EndpointConfig) { c.VAD.MinLevelDB = 3 }},
		{"hangover not shorter than the delay", func(c *EndpointConfig) { c.VAD.Hangover = time.Second }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultEndpointConfig()
			tc.mut(&cfg)
			if _, err := NewEndpointer(cfg); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
