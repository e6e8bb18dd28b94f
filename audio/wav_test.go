package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// rawWAV builds a WAV byte stream by hand: fmt fields, optional extra chunks, data.
func rawWAV(format uint16, channels, rate, bits int, data []byte, dataSize uint32, extensible bool) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(0))
	b.WriteString("WAVE")
	b.WriteString("LIST") // a chunk to skip
	w(uint32(3))
	b.WriteString("abc\x00") // odd size, padded
	b.WriteString("fmt ")
	if extensible {
		w(uint32(40))
		w(uint16(wavFormatExtensible))
	} else {
		w(uint32(16))
		w(format)
	}
	w(uint16(channels))
	w(uint32(rate))
	w(uint32(rate * channels * bits / 8))
	w(uint16(channels * bits / 8))
	w(uint16(bits))
	if extensible {
		w(uint16(22))
		w(uint16(bits))
		w(uint32(0))
		w(format)
		b.Write(make([]byte, 14))
	}
	b.WriteString("data")
	w(dataSize)
	b.Write(data)
	return b.Bytes()
}

func TestReadWAVFormats(t *testing.T) {
	le := binary.LittleEndian
	cases := []struct {
		name  string
		wav   []byte
		want  []int16
		rate  int
		errIs error
	}{
		{"pcm16 mono", rawWAV(1, 1, 16000, 16, []byte{0x00, 0x40, 0x00, 0xc0}, 4, false), []int16{16384, -16384}, 16000, nil},
		{"pcm16 stereo averaged", rawWAV(1, 2, 44100, 16, le.AppendUint16(le.AppendUint16(nil, 1000), 3000), 4, false), []int16{2000}, 44100, nil},
		{"pcm8", rawWAV(1, 1, 8000, 8, []byte{128, 255, 0}, 3, false), []int16{0, 32512, -32768}, 8000, nil},
		{"pcm24", rawWAV(1, 1, 48000, 24, []byte{0x00, 0x00, 0x40}, 3, false), []int16{16384}, 48000, nil},
		{"pcm32 extensible", rawWAV(1, 1, 48000, 32, le.AppendUint32(nil, uint32(1<<30)), 4, true), []int16{16384}, 48000, nil},
		{"float32", rawWAV(3, 1, 24000, 32, le.AppendUint32(nil, math.Float32bits(-0.5)), 4, false), []int16{-16384}, 24000, nil},
		{"float64 clipped", rawWAV(3, 1, 24000, 64, le.AppendUint64(nil, math.Float64bits(2)), 8, false), []int16{32767}, 24000, nil},
		{"streaming size read to EOF", rawWAV(1, 1, 22050, 16, []byte{1, 0, 2, 0}, 0x7ffff000, false), []int16{1, 2}, 22050, nil},
		{"not RIFF", []byte("RIFX0000WAVE"), nil, 0, ErrInvalidWAV},
		{"short", []byte("RIF"), nil, 0, ErrInvalidWAV},
		{"mu-law", rawWAV(7, 1, 8000, 8, []byte{1}, 1, false), nil, 0, ErrUnsupportedFormat},
		{"zero channels", rawWAV(1, 0, 8000, 16, []byte{1, 0}, 2, false), nil, 0, ErrInvalidWAV},
		{"no data chunk", rawWAV(1, 1, 8000, 16, nil, 0, false)[:48], nil, 0, ErrInvalidWAV},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ReadWAV(bytes.NewReader(tc.wav))
			if tc.errIs != nil {
				if !errors.Is(err, tc.errIs) {
					t.Fatalf("err %v, want %v", err, tc.errIs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Rate != tc.rate || len(c.Samples) != len(tc.want) {
				t.Fatalf("rate %d samples %v, want %d %v", c.Rate, c.Samples, tc.rate, tc.want)
			}
			for i := range tc.want {
				if d := int(c.Samples[i]) - int(tc.want[i]); d < -1 || d > 1 {
					t.Fatalf("samples %v, want %v", c.Samples, tc.want)
				}
			}
		})
	}
}

func TestWAVRoundTripAndSox(t *testing.T) {
	in := sine(440, SampleRate, SampleRate/2, 12000)
	path := writeTempWAV(t, in, SampleRate)
	c, err := ReadWAVFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rate != SampleRate || len(c.Samples) != len(in) || c.Samples[100] != in[100] {
		t.Fatalf("round trip: rate %d, %d samples", c.Rate, len(c.Samples))
	}
	// sox, an independent reader, must agree on the header.
	var got []string
	for _, opt := range []string{"-r", "-c", "-s", "-b"} {
		out, err := exec.Command("soxi", opt, path).CombinedOutput()
		if err != nil {
			t.Fatalf("soxi %s: %v: %s", opt, err, out)
		}
		got = append(got, strings.TrimSpace(string(out)))
	}
	if strings.Join(got, " ") != "16000 1 8000 16" {
		t.Errorf("soxi says rate, channels, samples, bits = %q", got)
	}
}

func TestSessionRecorderAlignsTracks(t *testing.T) {
	dir := t.TempDir()
	r, err := NewSessionRecorder(dir)
	if err != nil {
		t.Fatal(err)
	}
	cand := sine(300, SampleRate, SampleRate, 5000) // 0..1 s
	exam := sine(500, SampleRate, SampleRate/2, 5000)
	if err := r.WriteAt(TrackCandidate, 0, cand); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteAt(TrackExaminer, 2*SampleRate, exam); err != nil { // 2..2.5 s
		t.Fatal(err)
	}
	if err := r.WriteAt(Track(7), 0, cand); err == nil {
		t.Error("unknown track accepted")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteAt(TrackCandidate, 0, cand); !errors.Is(err, ErrClosed) {
		t.Errorf("write after close: %v", err)
	}
	c, err := ReadWAVFile(filepath.Join(dir, "candidate.wav"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := ReadWAVFile(r.Path(TrackExaminer))
	if err != nil {
		t.Fatal(err)
	}
	want := 5 * SampleRate / 2
	if len(c.Samples) != want || len(e.Samples) != want {
		t.Fatalf("lengths %d and %d, want both %d", len(c.Samples), len(e.Samples), want)
	}
	if LevelDB(e.Samples[:2*SampleRate]) != -100 || LevelDB(e.Samples[2*SampleRate:]) < -20 {
		t.Error("examiner audio not at 2 s")
	}
	if LevelDB(c.Samples[SampleRate:]) != -100 || LevelDB(c.Samples[:SampleRate]) < -20 {
		t.Error("candidate track not padded with silence")
	}
}

func FuzzReadWAV(f *testing.F) {
	f.Add(rawWAV(1, 1, 16000, 16, []byte{0, 64, 0, 192}, 4, false))
	f.Add(rawWAV(3, 2, 48000, 32, make([]byte, 16), 16, true))
	f.Add(rawWAV(1, 1, 22050, 24, []byte{1, 2, 3}, 0xffffffff, false))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadWAV(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrInvalidWAV) && !errors.Is(err, ErrUnsupportedFormat) {
				t.Fatalf("unnamed error %v", err)
			}
			return
		}
		if c.Rate < 1000 || len(c.Samples) > len(data) {
			t.Fatalf("rate %d, %d samples from %d bytes", c.Rate, len(c.Samples), len(data))
		}
	})
}
