package voicepath

import (
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/spec"
)

func TestSpecTurnTaking(t *testing.T) {
	def := audio.DefaultEndpointConfig()
	tt := &spec.ResolvedTurnTaking{CompleteDelay: 0.2, MinDelay: 0.4, MaxDelay: 2}
	cases := []struct {
		name           string
		tt             *spec.ResolvedTurnTaking
		minSet, maxSet bool
		ep             audio.EndpointConfig
		want           [3]time.Duration // complete, min, max
	}{
		{"no policy", nil, false, false, def, [3]time.Duration{0, 500 * time.Millisecond, 3 * time.Second}},
		{"the spec's delays", tt, false, false, def, [3]time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 2 * time.Second}},
		{"flags win", tt, true, true, def, [3]time.Duration{200 * time.Millisecond, 500 * time.Millisecond, 3 * time.Second}},
	}
	for _, tc := range cases {
		got := SpecTurnTaking(tc.ep, tc.tt, tc.minSet, tc.maxSet)
		if g := [3]time.Duration{got.CompleteEndpointingDelay, got.MinEndpointingDelay, got.MaxEndpointingDelay}; g != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, g, tc.want)
		}
		if _, err := audio.NewEndpointer(got); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
