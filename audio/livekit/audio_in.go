package livekit

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/livekit/media-sdk"
)

// InputSampleRate is the rate of the candidate audio the room delivers: 16 kHz mono, what
// voice-activity detection and speech recognition expect.
const InputSampleRate = 16000

// AudioFrame is a run of decoded audio from one participant.
type AudioFrame struct {
	Samples    []int16 // mono PCM
	SampleRate int
	From       string // identity of the participant who spoke
	Received   time.Time
}

// Duration is how long the frame plays.
func (f AudioFrame) Duration() time.Duration {
	if f.SampleRate <= 0 {
		return 0
	}
	return time.Duration(len(f.Samples)) * time.Second / time.Duration(f.SampleRate)
}

// frameSink receives decoded PCM from the SDK's decoder (media.PCMRemoteTrack calls
// WriteSample on its own goroutine) and hands it on without ever blocking that goroutine: when
// the consumer falls behind, the oldest frames are dropped (counted in dropped), because live
// audio is worth more the newer it is.
type frameSink struct {
	from    string
	rate    int
	out     chan AudioFrame
	dropped *atomic.Int64
	log     *slog.Logger
}

func (s *frameSink) WriteSample(sample media.PCM16Sample) error {
	if len(sample) == 0 {
		return nil
	}
	frame := AudioFrame{Samples: append([]int16(nil), sample...), SampleRate: s.rate, From: s.from, Received: time.Now()}
	for {
		select {
		case s.out <- frame:
			return nil
		default:
		}
		select {
		case <-s.out:
			if n := s.dropped.Add(1); n == 1 || n%500 == 0 {
				s.log.Warn("audio consumer is behind; oldest frames dropped", "from", s.from, "dropped", n)
			}
		default:
		}
	}
}

func (s *frameSink) Close() error { return nil }
