package audio

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"
)

// FuzzTrimLeadingQuiet: the trimmed clip is the original's end; everything dropped is quiet;
// what is kept has a sound within its first leadKeep; and a clip with no sound loses nothing.
func FuzzTrimLeadingQuiet(f *testing.F) {
	f.Add(160, 800, int16(3000), 16000)
	f.Add(0, 10, int16(100), 8000)
	f.Add(5000, 0, int16(0), 24000)
	f.Fuzz(func(t *testing.T, lead, body int, amp int16, rate int) {
		if lead < 0 || body < 0 || lead+body > 1<<16 || rate < 1000 || rate > 48000 {
			t.Skip()
		}
		s := make([]int16, lead+body)
		for i := lead; i < len(s); i++ {
			s[i] = int16(float64(amp) * math.Sin(float64(i)))
		}
		c := Clip{Samples: s, Rate: rate}
		got := c.TrimLeadingQuiet()
		// A stream trimmed as it arrives (leadTrimmer) gives what the whole clip trimmed does,
		// unless it has no sound at all: then it gives nothing.
		var lt leadTrimmer
		var streamed []int16
		step := max(1, lead/3+body/5)
		for i := 0; i < len(s); i += step {
			streamed = append(streamed, lt.add(Clip{Samples: s[i:min(i+step, len(s))], Rate: rate}).Samples...)
		}
		if c.firstSound() >= 0 && !slices.Equal(streamed, got.Samples) {
			t.Fatalf("streamed and trimmed: %d samples, whole and trimmed: %d", len(streamed), len(got.Samples))
		}
		if c.firstSound() < 0 && len(streamed) != 0 {
			t.Fatalf("a stream with no sound gave %d samples", len(streamed))
		}
		cut := len(s) - len(got.Samples)
		if cut < 0 || got.Rate != rate || (len(got.Samples) > 0 && &got.Samples[0] != &s[cut]) {
			t.Fatalf("not the clip's end: cut %d", cut)
		}
		win := int(int64(rate) * int64(leadWindow) / int64(time.Second))
		for i := 0; i+win <= cut; i += win {
			if LevelDB(s[i:i+win]) > leadQuietDBFS {
				t.Fatalf("dropped a sound at sample %d", i)
			}
		}
		loud := false
		for i := 0; i+win <= len(s); i += win {
			loud = loud || LevelDB(s[i:i+win]) > leadQuietDBFS
		}
		if !loud {
			if cut != 0 {
				t.Fatalf("a clip with no sound lost %d samples", cut)
			}
			return
		}
		keep := int(int64(rate) * int64(leadKeep) / int64(time.Second))
		for j := 0; j <= keep && j < len(got.Samples); j++ {
			if LevelDB(got.Samples[j:min(j+win, len(got.Samples))]) > leadQuietDBFS {
				return
			}
		}
		t.Fatalf("more than %d samples of quiet kept before the first sound", keep)
	})
}

// TestTrimLeadingQuietEspeak: espeak-ng opens every line with 10 ms of quiet; trimmed, the
// line starts 2 ms before its first sound, and all of its sound is there.
func TestTrimLeadingQuietEspeak(t *testing.T) {
	e, err := NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.Synthesize(context.Background(), "Thank you. Could you tell me more?", SpeakOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := c.TrimLeadingQuiet()
	cut := time.Duration(len(c.Samples)-len(got.Samples)) * time.Second / time.Duration(c.Rate)
	if cut < 5*time.Millisecond || cut > 15*time.Millisecond {
		t.Fatalf("trimmed %v of espeak-ng's lead-in (want 5..15 ms)", cut)
	}
	if LevelDB(got.Samples[:c.Rate/1000]) > leadQuietDBFS {
		t.Fatalf("the first millisecond kept is not quiet: the onset may be clipped")
	}
}
