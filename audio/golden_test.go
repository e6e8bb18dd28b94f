package audio

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/examtui/examtui/internal/testutil"
)

// syllables is a deterministic speech-like signal: 200 Hz carrier, 4 Hz syllable envelope,
// bursts separated by the given pauses, over white noise at -45 dBFS.
func syllables(parts ...int) []int16 {
	var s []int16
	s = append(s, make([]int16, SampleRate)...)
	for i, p := range parts {
		if i%2 == 1 {
			s = append(s, make([]int16, p*SampleRate/1000)...)
			continue
		}
		n := p * SampleRate / 1000
		for j := range n {
			tt := float64(j) / SampleRate
			env := 0.35 + 0.65*math.Abs(math.Sin(math.Pi*4*tt))
			s = append(s, int16(9000*env*math.Sin(2*math.Pi*200*tt)))
		}
	}
	return mix(s, whiteNoise(len(s), -45, 42))
}

func TestVADGolden(t *testing.T) {
	cases := []struct {
		name  string
		parts []int
		cfg   func(*EndpointConfig)
	}{
		{"three_turns", []int{900, 250, 600, 1500, 1200, 2000, 400, 1000}, nil},
		{"long_min_delay", []int{900, 700, 600, 1000}, func(c *EndpointConfig) { c.MinEndpointingDelay = 800e6 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultEndpointConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			var got []map[string]int64
			for _, u := range runEndpointer(t, cfg, syllables(tc.parts...)) {
				got = append(got, map[string]int64{"startMs": u.StartMs, "endMs": u.EndMs, "decidedMs": u.DecidedMs, "samplesStartMs": u.SamplesStartMs})
			}
			b, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(testdataDir(t), "vad_"+tc.name+".golden.json")
			testutil.Golden(t, path, append(b, '\n'))
		})
	}
}
