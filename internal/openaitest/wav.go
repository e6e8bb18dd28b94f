package openaitest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"time"
)

// PCM is mono or interleaved 16-bit signed audio.
type PCM struct {
	SampleRate int
	Channels   int
	Samples    []int16
}

// Duration is the audio's length.
func (p *PCM) Duration() time.Duration {
	if p.SampleRate <= 0 || p.Channels <= 0 {
		return 0
	}
	frames := len(p.Samples) / p.Channels
	return time.Duration(frames) * time.Second / time.Duration(p.SampleRate)
}

// Bytes is the samples as little-endian s16, OpenAI's pcm response format.
func (p *PCM) Bytes() []byte {
	out := make([]byte, 2*len(p.Samples))
	for i, s := range p.Samples {
		binary.LittleEndian.PutUint16(out[2*i:], uint16(s))
	}
	return out
}

// ReadWAV reads a 16-bit PCM WAV stream. Streamed WAVs (espeak-ng --stdout) carry placeholder
// sizes, so a data chunk is read to the end of the stream when its size overruns it.
func ReadWAV(r io.Reader) (*PCM, error) {
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrWAV, err)
	}
	if string(hdr[0:4]) != "RIFF" || string(hdr[8:12]) != "WAVE" {
		return nil, fmt.Errorf("%w: no RIFF/WAVE header", ErrWAV)
	}
	p := &PCM{}
	gotFmt := false
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return nil, fmt.Errorf("%w: no data chunk: %w", ErrWAV, err)
		}
		size := binary.LittleEndian.Uint32(ch[4:8])
		switch string(ch[0:4]) {
		case "fmt ":
			if size < 16 || size > 1<<16 {
				return nil, fmt.Errorf("%w: fmt chunk of %d bytes", ErrWAV, size)
			}
			buf := make([]byte, size+size%2)
			if _, err := io.ReadFull(r, buf); err != nil {
				return nil, fmt.Errorf("%w: fmt chunk: %w", ErrWAV, err)
			}
			format := binary.LittleEndian.Uint16(buf[0:2])
			p.Channels = int(binary.LittleEndian.Uint16(buf[2:4]))
			p.SampleRate = int(binary.LittleEndian.Uint32(buf[4:8]))
			bits := binary.LittleEndian.Uint16(buf[14:16])
			if (format != 1 && format != 0xFFFE) || bits != 16 || p.Channels < 1 || p.SampleRate < 1 {
				return nil, fmt.Errorf("%w: format %d, %d bits, %d channels, %d Hz", ErrWAV, format, bits, p.Channels, p.SampleRate)
			}
			gotFmt = true
		case "data":
			if !gotFmt {
				return nil, fmt.Errorf("%w: data before fmt", ErrWAV)
			}
			data, err := io.ReadAll(io.LimitReader(r, int64(size)))
			if err != nil {
				return nil, fmt.Errorf("%w: data chunk: %w", ErrWAV, err)
			}
			p.Samples = make([]int16, len(data)/2)
			for i := range p.Samples {
				p.Samples[i] = int16(binary.LittleEndian.Uint16(data[2*i:]))
			}
			return p, nil
		default:
			if _, err := io.CopyN(io.Discard, r, int64(size+size%2)); err != nil {
				return nil, fmt.Errorf("%w: chunk %q: %w", ErrWAV, ch[0:4], err)
			}
		}
	}
}

// WAVHeader is a canonical 44-byte header for dataBytes of 16-bit PCM.
func WAVHeader(sampleRate, channels, dataBytes int) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + dataBytes))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1))
	w(uint16(channels))
	w(uint32(sampleRate))
	w(uint32(sampleRate * channels * 2))
	w(uint16(channels * 2))
	w(uint16(16))
	b.WriteString("data")
	w(uint32(dataBytes))
	return b.Bytes()
}

// Resample converts mono audio to rate by linear interpolation: plenty for speech in tests.
func Resample(p *PCM, rate int) *PCM {
	if p.SampleRate == rate || len(p.Samples) == 0 || p.Channels != 1 {
		return &PCM{SampleRate: rate, Channels: p.Channels, Samples: append([]int16(nil), p.Samples...)}
	}
	n := int(int64(len(p.Samples)) * int64(rate) / int64(p.SampleRate))
	out := make([]int16, n)
	step := float64(p.SampleRate) / float64(rate)
	last := len(p.Samples) - 1
	for i := range out {
		pos := float64(i) * step
		j := int(pos)
		if j >= last {
			out[i] = p.Samples[last]
			continue
		}
		frac := pos - float64(j)
		out[i] = int16(float64(p.Samples[j])*(1-frac) + float64(p.Samples[j+1])*frac)
	}
	return &PCM{SampleRate: rate, Channels: 1, Samples: out}
}
