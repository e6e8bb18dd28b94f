package audio

import (
	"math"
	"testing"
)

func TestRMS(t *testing.T) {
	cases := []struct {
		name string
		in   []int16
		want float64
	}{
		{"none", nil, 0},
		{"silence", make([]int16, 320), 0},
		{"constant", []int16{1000, -1000, 1000, -1000}, 1000},
		{"mixed", []int16{3, 4}, math.Sqrt(12.5)},
		{"full scale", []int16{math.MinInt16}, 32768},
	}
	for _, tc := range cases {
		if got := RMS(tc.in); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: RMS = %v, want %v", tc.name, got, tc.want)
		}
	}
}
