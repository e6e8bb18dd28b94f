package livekit

import (
	"fmt"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/livekit/media-sdk"
	"github.com/livekit/media-sdk/opus"
	pmedia "github.com/pion/webrtc/v4/pkg/media"
)

// packets collects what an Opus chain sends.
type packets struct{ got []pmedia.Sample }

func (p *packets) WriteSample(s pmedia.Sample) error {
	p.got = append(p.got, pmedia.Sample{Data: append([]byte(nil), s.Data...), Duration: s.Duration})
	return nil
}

// decoded16k collects decoded PCM.
type decoded16k struct{ pcm []int16 }

func (d *decoded16k) String() string  { return "decoded" }
func (d *decoded16k) SampleRate() int { return InputSampleRate }
func (d *decoded16k) Close() error    { return nil }
func (d *decoded16k) WriteSample(s media.PCM16Sample) error {
	d.pcm = append(d.pcm, s...)
	return nil
}

// TestOpusChainSendsEachFrameAsWritten feeds each source rate a track may have, a frame at a
// time as the pacer does, 100 ms of silence and then a tone, and decodes what the chain sends.
// At every rate each frame becomes one 10 ms packet as it is written (at a rate the encoder
// does not take, the resampler's look-ahead may keep back the end of one frame), and the tone
// is heard where it was put, give or take the encoder's 6.5 ms look-ahead. Through the SDK's
// soxr resampler, two frames were held back at 16 kHz, three at 24 kHz and seven at 11.025 kHz,
// and 22.05 kHz was never encoded at all.
func TestOpusChainSendsEachFrameAsWritten(t *testing.T) {
	const frames, onset = 60, 10 // frames written; the frame the tone starts in
	for _, rate := range []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000} {
		t.Run(fmt.Sprintf("%d Hz", rate), func(t *testing.T) {
			out := &packets{}
			chain, err := newOpusChain(out, rate, sdkLogger(slog.New(slog.DiscardHandler)))
			if err != nil {
				t.Fatal(err)
			}
			native := encoderRate(rate) == rate
			var written int64
			for n := range int64(frames) {
				frame := make(media.PCM16Sample, frameSamples(rate, n))
				for i := range frame {
					if n >= onset {
						at := float64(written+int64(i)) / float64(rate)
						frame[i] = int16(8000 * math.Sin(2*math.Pi*440*at))
					}
				}
				written += int64(len(frame))
				if err := chain.WriteSample(frame); err != nil {
					t.Fatalf("frame %d: %v", n, err)
				}
				want := int(n + 1)
				if !native {
					want = int(n) // the resampler's look-ahead can keep the end of one frame
				}
				if len(out.got) < want || len(out.got) > int(n+1) {
					t.Fatalf("after frame %d: %d packets sent, want %d (audio held back)", n, len(out.got), want)
				}
			}
			dec := &decoded16k{}
			d, err := opus.Decode(dec, 1, sdkLogger(slog.New(slog.DiscardHandler)))
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range out.got {
				if p.Duration != dtxFrame {
					t.Fatalf("packet %d lasts %v", i, p.Duration)
				}
				if err := d.WriteSample(opus.Sample(p.Data)); err != nil {
					t.Fatalf("packet %d: %v", i, err)
				}
			}
			heard := -1
			for i, v := range dec.pcm {
				if v > 1000 || v < -1000 {
					heard = i
					break
				}
			}
			if heard < 0 {
				t.Fatal("the tone was never heard")
			}
			late := time.Duration(heard)*time.Second/InputSampleRate - onset*dtxFrame
			limit := 8 * time.Millisecond // the look-ahead and a ramp
			if !native {
				limit = 10 * time.Millisecond // and the resampler's filter
			}
			if late < 0 || late > limit {
				t.Fatalf("the tone is heard %v after it was put (want 0..%v)", late, limit)
			}
		})
	}
}

// FuzzFrameSamples: n frames at any rate hold n·rate/100 samples, rounded down, and each holds
// rate/100 of them or one more.
func FuzzFrameSamples(f *testing.F) {
	f.Add(22050, int64(7))
	f.Add(16000, int64(0))
	f.Add(11025, int64(1000))
	f.Fuzz(func(t *testing.T, rate int, n int64) {
		if rate < 8000 || rate > 48000 || n < 0 || n > 1<<30 {
			t.Skip()
		}
		total := int64(0)
		start := n
		if start > 200 {
			start -= 200
		} else {
			start = 0
		}
		for k := start; k <= n; k++ {
			s := frameSamples(rate, k)
			if s != rate/100 && s != rate/100+1 {
				t.Fatalf("frame %d at %d Hz holds %d samples", k, rate, s)
			}
			total += int64(s)
		}
		want := (n+1)*int64(rate)/100 - start*int64(rate)/100
		if total != want {
			t.Fatalf("frames %d..%d at %d Hz hold %d samples, want %d", start, n, rate, total, want)
		}
	})
}
