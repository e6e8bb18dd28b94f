package audio

import (
	"bytes"
	"io"
	"slices"
	"testing"
)

// chunkedReader gives its data in pieces of the sizes it cycles through, as a network does.
type chunkedReader struct {
	data  []byte
	sizes []byte
	n     int
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	size := 1
	if len(r.sizes) > 0 {
		size = int(r.sizes[r.n%len(r.sizes)])*7 + 1
		r.n++
	}
	n := copy(p[:min(len(p), size)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// FuzzStreamWAV: however the stream arrives, the runs StreamWAV hands over are, in order, the
// clip ReadWAV reads from the same bytes, and every run but the last holds whole samples of at
// least wavRun.
func FuzzStreamWAV(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, uint16(24000), []byte{3, 200, 9})
	f.Add([]byte{255, 0, 7}, uint16(8000), []byte{0})
	f.Fuzz(func(t *testing.T, seed []byte, rate uint16, sizes []byte) {
		if len(seed) == 0 || rate < 1000 {
			t.Skip()
		}
		samples := make([]int16, 4000)
		for i := range samples {
			samples[i] = int16(seed[i%len(seed)])<<8 | int16(i)
		}
		var wav bytes.Buffer
		if err := WriteWAV(&wav, samples, int(rate)); err != nil {
			t.Fatal(err)
		}
		whole, err := ReadWAV(bytes.NewReader(wav.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var got []int16
		var runs []int
		streamed, err := StreamWAV(&chunkedReader{data: wav.Bytes(), sizes: sizes}, func(c Clip) {
			if c.Rate != int(rate) {
				t.Fatalf("run at %d Hz, the stream is %d", c.Rate, rate)
			}
			got = append(got, c.Samples...)
			runs = append(runs, len(c.Samples))
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, whole.Samples) || !slices.Equal(streamed.Samples, whole.Samples) {
			t.Fatalf("streamed %d samples in %d runs, read %d", len(got), len(runs), len(whole.Samples))
		}
		least := int(rate) * int(wavRun.Milliseconds()) / 1000
		for i, n := range runs[:max(0, len(runs)-1)] {
			if n < least {
				t.Fatalf("run %d of %d holds %d samples, under %d", i, len(runs), n, least)
			}
		}
	})
}
