package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/runtime"
)

func TestPercentile(t *testing.T) {
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	cases := []struct {
		vals []float64
		p    int
		want float64
	}{
		{ten, 50, 5}, {ten, 95, 10}, {ten, 10, 1}, {ten, 100, 10},
		{[]float64{42}, 50, 42}, {[]float64{42}, 95, 42}, {nil, 50, 0},
	}
	for _, tc := range cases {
		if got := percentile(tc.vals, tc.p); got != tc.want {
			t.Errorf("percentile(%v, %d) = %v, want %v", tc.vals, tc.p, got, tc.want)
		}
	}
}

func TestFmtMs(t *testing.T) {
	cases := map[float64]string{0: "0 ms", 0.0004: "0 ms", 0.133: "133 µs", 1: "1 ms", 2.5: "2.5 ms", 99.94: "99.9 ms",
		1790: "1790 ms", 12345: "12.3 s"}
	for ms, want := range cases {
		if got := fmtMs(ms); got != want {
			t.Errorf("fmtMs(%v) = %q, want %q", ms, got, want)
		}
	}
}

// TestLatencyDashboard: the table shows what was measured, drops columns before it overflows,
// and falls back to one line when the pane is short or narrow.
func TestLatencyDashboard(t *testing.T) {
	st := NewStyles(DefaultPalette(), true, true)
	var s latencyStats
	for i := 1; i <= 20; i++ {
		s.add(runtime.Latency{STTMs: float64(100 * i), LLMCompleteMs: float64(10 * i), TotalMs: float64(110 * i)})
	}
	s.add(runtime.Latency{LLMCompleteMs: 5, TotalMs: 5}) // typed: no STT this turn
	cases := []struct {
		width, room int
		wantLines   int
		want        []string
		notWant     []string
	}{
		{60, 20, 5, []string{"latency over 21 turns", "stage", "max", "stt              –  1000 ms  1900 ms  2000 ms", "total         5 ms  1100 ms  2090 ms  2200 ms"}, nil},
		{46, 20, 5, []string{"p95"}, []string{"max"}},
		{37, 20, 1, []string{"total p50 1100 ms · p95 2090 ms · max 2200 ms"}, []string{"stage"}},
		{60, 4, 1, []string{"total p50"}, nil},
		{60, 1, 0, nil, nil},
	}
	for _, tc := range cases {
		lines := s.lines(&st, tc.width, tc.room)
		text := ansi.Strip(strings.Join(lines, "\n"))
		if len(lines) != tc.wantLines {
			t.Errorf("%d×%d: %d lines, want %d:\n%s", tc.width, tc.room, len(lines), tc.wantLines, text)
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > tc.width && tc.wantLines > 1 {
				t.Errorf("%d×%d: line %q is %d cells", tc.width, tc.room, l, w)
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%d×%d: lacks %q:\n%s", tc.width, tc.room, w, text)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(text, w) {
				t.Errorf("%d×%d: has %q:\n%s", tc.width, tc.room, w, text)
			}
		}
	}
}
