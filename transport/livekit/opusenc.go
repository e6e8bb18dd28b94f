package livekit

import (
	"github.com/examtui/examtui/audio"
	"github.com/livekit/media-sdk"
	"github.com/livekit/media-sdk/opus"
	protoLogger "github.com/livekit/protocol/logger"
)

// opusRates are the input rates libopus encodes, lowest first.
var opusRates = [...]int{8000, 12000, 16000, 24000, 48000}

// encoderRate is the rate a track's Opus encoder runs at for PCM at rate: the lowest rate
// libopus takes that is not below it (the rate itself, when libopus takes it). The RTP clock
// is 48 kHz whatever the encoder's rate: timestamps come from each packet's duration.
func encoderRate(rate int) int {
	for _, r := range opusRates {
		if rate <= r {
			return r
		}
	}
	return opusRate
}

// newOpusChain returns the writer that encodes mono PCM at rate, written a dtxFrame at a time,
// into Opus packets of one dtxFrame each on w, with nothing held back: each packet leaves as
// the frame it ends in is written.
//
// The encoder runs at the source rate when libopus takes it. Every track used to go through the
// SDK's soxr resampler to 48 kHz, which holds back two frames of 16 kHz audio and three of 24
// kHz (seven of 11.025 kHz) before any reaches the encoder: 20–30 ms added to every line the
// examiner says and every answer a client sends, for nothing (upsampling adds no sound the
// encoder would keep). A rate libopus does not take is raised to the next one it does with
// audio.Resampler (its filter looks under 2 ms ahead) and cut back into whole frames, which
// the encoder needs: from 22.05 kHz, soxr gave 479 or 481 samples at a time, which the
// encoder refused one and all, so such a track was silent.
func newOpusChain(w media.MediaSampleWriter, rate int, logger protoLogger.Logger) (media.PCM16Writer, error) {
	enc := encoderRate(rate)
	pcm, err := opus.Encode(media.FromSampleWriter[opus.Sample](w, enc, dtxFrame), 1, logger)
	if err != nil {
		return nil, err
	}
	if enc == rate {
		return pcm, nil
	}
	r, err := audio.NewResampler(rate, enc)
	if err != nil {
		return nil, err
	}
	return &raisedRate{r: r, w: pcm, rate: rate, size: frameSamples(enc, 0)}, nil
}

// frameSamples is how many samples at rate the n-th dtxFrame of a stream holds: rate/100 when
// that is whole, else that or one more, so that n frames hold n·rate/100 samples, rounded
// down, and the stream keeps its clock.
func frameSamples(rate int, n int64) int {
	per := int64(rate) * dtxFrame.Milliseconds()
	return int((n+1)*per/1000 - n*per/1000)
}

// raisedRate resamples the PCM written to it to w's rate and writes it on in frames of size
// samples, keeping the rest for the next write.
type raisedRate struct {
	r    *audio.Resampler
	w    media.PCM16Writer
	rate int
	size int
	out  []int16
}

func (f *raisedRate) String() string  { return "resample -> " + f.w.String() }
func (f *raisedRate) SampleRate() int { return f.rate }
func (f *raisedRate) Close() error    { return f.w.Close() }

func (f *raisedRate) WriteSample(s media.PCM16Sample) error {
	f.out = f.r.Process(s, f.out)
	sent := 0
	var err error
	for len(f.out)-sent >= f.size && err == nil {
		err = f.w.WriteSample(f.out[sent : sent+f.size : sent+f.size])
		sent += f.size
	}
	f.out = append(f.out[:0], f.out[sent:]...)
	return err
}
