package audio

import (
	"math"
	"testing"
)

func sine(freq float64, rate, n int, amp float64) []int16 {
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return out
}

// toneLevel is the amplitude of freq in s (a single-bin DFT over the middle of the signal, away
// from the edges).
func toneLevel(s []int16, freq float64, rate int) float64 {
	lo, hi := len(s)/4, 3*len(s)/4
	var re, im float64
	for i := lo; i < hi; i++ {
		ph := 2 * math.Pi * freq * float64(i) / float64(rate)
		re += float64(s[i]) * math.Cos(ph)
		im += float64(s[i]) * math.Sin(ph)
	}
	return 2 * math.Hypot(re, im) / float64(hi-lo)
}

func TestResamplePassesSpeechBandAndRejectsAliases(t *testing.T) {
	cases := []struct {
		in        int
		passFreq  float64 // must come through at full level
		aliasFreq float64 // above 8 kHz: must not fold into the 16 kHz band
	}{
		{48000, 1000, 12000},
		{44100, 3000, 10000},
		{24000, 440, 9000},
		{22050, 2500, 10500},
	}
	for _, tc := range cases {
		n := tc.in // one second
		pass, err := Resample(sine(tc.passFreq, tc.in, n, 10000), tc.in, SampleRate)
		if err != nil {
			t.Fatal(err)
		}
		if len(pass) != SampleRate {
			t.Errorf("%d Hz: %d samples out, want %d", tc.in, len(pass), SampleRate)
		}
		if got := toneLevel(pass, tc.passFreq, SampleRate); math.Abs(got-10000) > 100 {
			t.Errorf("%d Hz: %v Hz tone at %.0f, want 10000±1%%", tc.in, tc.passFreq, got)
		}
		alias, err := Resample(sine(tc.aliasFreq, tc.in, n, 10000), tc.in, SampleRate)
		if err != nil {
			t.Fatal(err)
		}
		folded := SampleRate - tc.aliasFreq // where a naive decimator would put it
		if got := toneLevel(alias, folded, SampleRate); got > 10000*math.Pow(10, -60.0/20) {
			t.Errorf("%d Hz: %v Hz folded to %v Hz at %.1f (want below -60 dB)", tc.in, tc.aliasFreq, folded, got)
		}
		if db := LevelDB(alias[len(alias)/4 : 3*len(alias)/4]); db > -60 {
			t.Errorf("%d Hz: %v Hz leaves %.1f dBFS (want < -60)", tc.in, tc.aliasFreq, db)
		}
	}
}

func TestResampleStreamingMatchesWhole(t *testing.T) {
	in := sine(700, 44100, 44100, 8000)
	whole, err := Resample(in, 44100, SampleRate)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewResampler(44100, SampleRate)
	if err != nil {
		t.Fatal(err)
	}
	var got []int16
	for off := 0; off < len(in); off += 441 { // 10 ms device buffers
		got = r.Process(in[off:min(off+441, len(in))], got)
	}
	got = r.Flush(got)[:len(whole)]
	for i := range whole {
		if got[i] != whole[i] {
			t.Fatalf("sample %d: streamed %d, whole %d", i, got[i], whole[i])
		}
	}
}

func TestResampleUpForPlayback(t *testing.T) {
	out, err := Resample(sine(1000, SampleRate, SampleRate, 10000), SampleRate, 48000)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 48000 {
		t.Fatalf("%d samples", len(out))
	}
	if got := toneLevel(out, 1000, 48000); math.Abs(got-10000) > 100 {
		t.Errorf("1 kHz at %.0f after upsampling", got)
	}
	if img := toneLevel(out, 15000, 48000); img > 10 { // the 16k-1k image must be filtered
		t.Errorf("image at 15 kHz: %.1f", img)
	}
}

func TestNewResamplerRejectsBadRates(t *testing.T) {
	for _, r := range [][2]int{{0, 16000}, {16000, 999}, {1 << 21, 16000}} {
		if _, err := NewResampler(r[0], r[1]); err == nil {
			t.Errorf("NewResampler(%d, %d) accepted", r[0], r[1])
		}
	}
}

func BenchmarkResample48kTo16k(b *testing.B) {
	in := sine(440, 48000, 48000, 8000)
	r, _ := NewResampler(48000, SampleRate)
	out := make([]int16, 0, SampleRate+64)
	b.SetBytes(int64(len(in) * 2))
	for b.Loop() {
		out = r.Process(in, out[:0])
	}
}
