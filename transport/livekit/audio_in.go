package livekit

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/livekit/media-sdk"
	lkmedia "github.com/livekit/server-sdk-go/v2/pkg/media"
	"github.com/pion/webrtc/v4"
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

// decoders are the SDK's decoders of the remote audio tracks a participant receives, by track
// SID: the client's of the bot's voice, the room's of the candidates' microphones.
type decoders struct {
	mu sync.Mutex
	m  map[string]*lkmedia.PCMRemoteTrack
}

// decode starts decoding track into sink as InputSampleRate mono and keeps the decoder under
// sid, closing the decoder it replaces.
func (d *decoders) decode(track *webrtc.TrackRemote, sid string, sink *frameSink, log *slog.Logger) error {
	pcm, err := lkmedia.NewPCMRemoteTrack(track, sink,
		lkmedia.WithTargetSampleRate(InputSampleRate), lkmedia.WithTargetChannels(1), lkmedia.WithLogger(sdkLogger(log)))
	if err != nil {
		return err
	}
	d.mu.Lock()
	if d.m == nil {
		d.m = make(map[string]*lkmedia.PCMRemoteTrack)
	}
	old := d.m[sid]
	d.m[sid] = pcm
	d.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

// stop closes and forgets the decoder of track sid, if there is one.
func (d *decoders) stop(sid string) {
	d.mu.Lock()
	pcm := d.m[sid]
	delete(d.m, sid)
	d.mu.Unlock()
	if pcm != nil {
		pcm.Close()
	}
}

// stopAll closes and forgets every decoder.
func (d *decoders) stopAll() {
	d.mu.Lock()
	all := d.m
	d.m = nil
	d.mu.Unlock()
	for _, pcm := range all {
		pcm.Close()
	}
}
