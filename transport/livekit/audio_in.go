package livekit

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/livekit/media-sdk"
	"github.com/livekit/media-sdk/opus"
	lkrtp "github.com/livekit/media-sdk/rtp"
	"github.com/pion/rtp"
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
	// Media is where the first sample is on the sender's clock: the packet's RTP timestamp,
	// unwrapped, from the stream's first packet. It is comparable only within one Stream.
	Media time.Duration
	// Stream numbers the sender's clock: each decoded track has its own, and a new one starts
	// when the sender's timestamps restart. Zero when the frame carries no media time.
	Stream uint64
	// Quiet: the sender said it is silent and sends nothing until it has sound again (an Opus
	// DTX frame: browsers' clients send one once they have heard some silence, then one per
	// 400 ms).
	Quiet bool
}

// Duration is how long the frame plays.
func (f AudioFrame) Duration() time.Duration {
	if f.SampleRate <= 0 {
		return 0
	}
	return time.Duration(len(f.Samples)) * time.Second / time.Duration(f.SampleRate)
}

// frameSink receives decoded PCM from a track's decoder (trackDecoder, on the track's read
// goroutine) and hands it on without ever blocking that goroutine: when
// the consumer falls behind, the oldest frames are dropped (counted in dropped), because live
// audio is worth more the newer it is.
type frameSink struct {
	from    string
	rate    int
	out     chan AudioFrame
	dropped *atomic.Int64
	log     *slog.Logger
}

// write hands on one decoded run with its media time (zero stream: none); quiet: it was
// decoded from a DTX frame.
func (s *frameSink) write(sample media.PCM16Sample, at time.Duration, stream uint64, quiet bool) error {
	if len(sample) == 0 {
		return nil
	}
	frame := AudioFrame{Samples: append([]int16(nil), sample...), SampleRate: s.rate, From: s.from, Received: time.Now(),
		Media: at, Stream: stream, Quiet: quiet}
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

// decoders are the decoders of the remote audio tracks a participant receives, by track SID:
// the client's of the bot's voice, the room's of the candidates' microphones.
type decoders struct {
	mu sync.Mutex
	m  map[string]*trackDecoder
}

// decode starts decoding track into sink as InputSampleRate mono and keeps the decoder under
// sid, closing the decoder it replaces.
func (d *decoders) decode(track *webrtc.TrackRemote, sid string, sink *frameSink, log *slog.Logger) error {
	td, err := newTrackDecoder(track, sink, log)
	if err != nil {
		return err
	}
	d.mu.Lock()
	if d.m == nil {
		d.m = make(map[string]*trackDecoder)
	}
	old := d.m[sid]
	d.m[sid] = td
	d.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

// stop closes and forgets the decoder of track sid, if there is one.
func (d *decoders) stop(sid string) {
	d.mu.Lock()
	td := d.m[sid]
	delete(d.m, sid)
	d.mu.Unlock()
	if td != nil {
		td.Close()
	}
}

// stopAll closes and forgets every decoder.
func (d *decoders) stopAll() {
	d.mu.Lock()
	all := d.m
	d.m = nil
	d.mu.Unlock()
	for _, td := range all {
		td.Close()
	}
}

// maxDTXFrame is the largest Opus packet that is a DTX frame: the table of contents byte and at
// most one more (libopus's DTX frames, read the same way by WebRTC).
const maxDTXFrame = 2

// streams numbers the sender clocks the process decodes (AudioFrame.Stream).
var streams atomic.Uint64

// maxClockJump is the largest forward step of a sender's RTP clock still read as the same
// clock (a long mute); a larger one, or any step back, starts a new stream.
const maxClockJump = 10 * time.Minute

// trackDecoder reads a remote Opus track's RTP packets (through the SDK's jitter buffer, which
// puts them in order), decodes each at InputSampleRate and hands it to the sink with its RTP
// timestamp as media time, so the receiver can place the audio where its sender put it, however
// late this process reads it (audio.LiveFramer). The SDK's PCMRemoteTrack decodes the same way
// but drops the timestamps.
type trackDecoder struct {
	sink  *frameSink
	clock int64 // the RTP clock rate (48 kHz for Opus)
	dec   opus.Writer
	log   *slog.Logger

	mu      sync.Mutex // the jitter buffer delivers from its own timer goroutine too
	closed  bool
	started bool
	lastTS  uint32
	ext     int64 // unwrapped timestamp of the latest packet, from the stream's first
	stream  uint64
	at      time.Duration // media time of the packet being decoded
	quiet   bool          // the packet being decoded is a DTX frame
}

func newTrackDecoder(track *webrtc.TrackRemote, sink *frameSink, log *slog.Logger) (*trackDecoder, error) {
	codec := track.Codec()
	if codec.MimeType != webrtc.MimeTypeOpus {
		return nil, fmt.Errorf("%w: track codec %s is not Opus", ErrInvalidConfig, codec.MimeType)
	}
	td := &trackDecoder{sink: sink, clock: int64(codec.ClockRate), log: log}
	if td.clock <= 0 {
		td.clock = 48000
	}
	dec, err := opus.Decode(pcmOut{td}, 1, sdkLogger(log))
	if err != nil {
		return nil, err
	}
	td.dec = dec
	go func() {
		err := lkrtp.HandleLoop(track, lkrtp.HandleJitter(td))
		if err != nil && !errors.Is(err, io.EOF) {
			log.Debug("candidate audio track ended", "err", err)
		}
	}()
	return td, nil
}

func (td *trackDecoder) String() string { return "examtui track decoder" }

// HandleRTP decodes one packet in order (lkrtp.Handler).
func (td *trackDecoder) HandleRTP(h *rtp.Header, payload []byte) error {
	td.mu.Lock()
	defer td.mu.Unlock()
	if td.closed {
		return io.EOF // ends the read loop
	}
	if len(payload) == 0 {
		return nil
	}
	step := int64(int32(h.Timestamp - td.lastTS))
	switch {
	case !td.started || step < 0 || step > int64(maxClockJump/time.Second)*td.clock:
		td.started, td.ext, td.stream = true, 0, streams.Add(1)
	default:
		td.ext += step
	}
	td.lastTS = h.Timestamp
	td.at = time.Duration(td.ext * int64(time.Second) / td.clock)
	td.quiet = len(payload) <= maxDTXFrame
	return td.dec.WriteSample(opus.Sample(payload))
}

// Close stops decoding; the read loop ends at the next packet or with the track.
func (td *trackDecoder) Close() {
	td.mu.Lock()
	defer td.mu.Unlock()
	if td.closed {
		return
	}
	td.closed = true
	if err := td.dec.Close(); err != nil {
		td.log.Debug("close audio decoder", "err", err)
	}
}

// pcmOut receives the decoder's samples (under the decoder's lock) and hands them to the sink
// with the media time of the packet they came from.
type pcmOut struct{ td *trackDecoder }

func (o pcmOut) String() string  { return "examtui pcm" }
func (o pcmOut) SampleRate() int { return InputSampleRate }
func (o pcmOut) Close() error    { return nil }
func (o pcmOut) WriteSample(s media.PCM16Sample) error {
	return o.td.sink.write(s, o.td.at, o.td.stream, o.td.quiet)
}
