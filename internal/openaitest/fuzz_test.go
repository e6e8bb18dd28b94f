package openaitest_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/examtui/examtui/internal/openaitest"
)

func FuzzSplitPieces(f *testing.F) {
	f.Add(`{"spokenText":"Café — très bien"}`, 3)
	f.Add("", 1)
	f.Add("日本語のテキスト", 1)
	f.Add("\xff\xfe broken", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n%64 + 1
		if n < 1 {
			n += 64
		}
		pieces := openaitest.SplitPieces(s, n)
		if got := strings.Join(pieces, ""); got != s {
			t.Fatalf("pieces join to %q, want %q", got, s)
		}
		for _, p := range pieces {
			if p == "" {
				t.Fatal("empty piece")
			}
			if utf8.ValidString(s) && !utf8.ValidString(p) {
				t.Fatalf("piece %q splits a rune", p)
			}
			if len(p) > n+utf8.UTFMax && utf8.ValidString(s) {
				t.Fatalf("piece of %d bytes for size %d", len(p), n)
			}
		}
	})
}

func FuzzReadWAV(f *testing.F) {
	f.Add(append(openaitest.WAVHeader(24000, 1, 4), 1, 2, 3, 4))
	f.Add([]byte("RIFF\xff\xff\xff\x7fWAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x22\x56\x00\x00\x44\xac\x00\x00\x02\x00\x10\x00data\xff\xff\xff\x7f\x01\x00"))
	f.Add([]byte("RIFF"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := openaitest.ReadWAV(bytes.NewReader(b))
		if err != nil {
			return
		}
		if p.SampleRate <= 0 || p.Channels <= 0 {
			t.Fatalf("accepted %d Hz %d channels", p.SampleRate, p.Channels)
		}
	})
}

func TestWAVRoundTrip(t *testing.T) {
	in := &openaitest.PCM{SampleRate: 22050, Channels: 1, Samples: []int16{0, 1000, -1000, 32767, -32768, 5}}
	wav := append(openaitest.WAVHeader(in.SampleRate, 1, 2*len(in.Samples)), in.Bytes()...)
	out, err := openaitest.ReadWAV(bytes.NewReader(wav))
	if err != nil {
		t.Fatal(err)
	}
	if out.SampleRate != 22050 || len(out.Samples) != len(in.Samples) {
		t.Fatalf("got %+v", out)
	}
	for i := range in.Samples {
		if in.Samples[i] != out.Samples[i] {
			t.Fatalf("sample %d: %d != %d", i, out.Samples[i], in.Samples[i])
		}
	}
	up := openaitest.Resample(&openaitest.PCM{SampleRate: 22050, Channels: 1, Samples: make([]int16, 22050)}, 24000)
	if len(up.Samples) != 24000 || up.SampleRate != 24000 {
		t.Errorf("resampled to %d samples at %d Hz", len(up.Samples), up.SampleRate)
	}
}
