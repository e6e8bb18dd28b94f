package voicepath

import (
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/spec"
)

func TestSpecTurnTaking(t *testing.T) {
	def := audio.DefaultEndpointConfig()
	tt := &spec.ResolvedTurnTaking{SureDelay: 0.1, CompleteDelay: 0.2, MinDelay: 0.4, MaxDelay: 2}
	cases := []struct {
		name           string
		tt             *spec.ResolvedTurnTaking
		minSet, maxSet bool
		ep             audio.EndpointConfig
		want           [4]time.Duration // sure, complete, min, max
	}{
		{"no policy", nil, false, false, def, [4]time.Duration{0, 0, 500 * time.Millisecond, 3 * time.Second}},
		{"the spec's delays", tt, false, false, def, [4]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 2 * time.Second}},
		{"flags win", tt, true, true, def, [4]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond, 3 * time.Second}},
	}
	for _, tc := range cases {
		got := SpecTurnTaking(tc.ep, tc.tt, tc.minSet, tc.maxSet)
		if g := [4]time.Duration{got.SureEndpointingDelay, got.CompleteEndpointingDelay, got.MinEndpointingDelay, got.MaxEndpointingDelay}; g != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, g, tc.want)
		}
		if _, err := audio.NewEndpointer(got); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
