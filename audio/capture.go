package audio

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gordonklaus/portaudio"
)

// Source delivers 16 kHz mono frames: the microphone (Capture), a file (NewClipSource) or a
// room transport.
type Source interface {
	// Frames is closed when the source stops.
	Frames() <-chan Frame
	// Start begins delivery; ctx cancellation stops it.
	Start(ctx context.Context) error
	Close() error
}

// Capture records the microphone through PortAudio as 16 kHz mono frames. The PortAudio
// callback only copies into a bounded ring and never blocks: when the reader falls behind,
// the oldest audio is dropped and counted (Dropped).
type Capture struct {
	device   string
	buffer   int // frames held for a slow reader
	log      *slog.Logger
	release  func()
	stream   *portaudio.Stream
	info     DeviceInfo
	rate     float64
	frames   chan Frame
	mu       sync.Mutex // guards ring, ringTimes
	ring     []int16    // device-rate samples not yet framed
	ringMax  int
	wake     chan struct{}
	dropped  atomic.Uint64 // samples dropped at the callback (device rate)
	droppedF atomic.Uint64 // frames dropped at the channel
	started  atomic.Bool
	closeMu  sync.Mutex
	closed   bool
	stop     chan struct{}
	done     chan struct{}
	marks    []captureMark // guarded by mu: when each callback's audio arrived
	total    int64         // guarded by mu: device samples received so far
	first    int64         // guarded by mu: unix nanos of the first callback
	early    atomic.Uint64 // device samples discarded for arriving ahead of the wall clock
}

// maxAhead is how far ahead of the wall clock a device may deliver before its audio is
// discarded: real devices deliver in real time with some burstiness; ALSA's null device
// delivers as fast as it is read, which would flood the VAD and the recording with hours of
// "audio" a minute.
const maxAhead = 500 * time.Millisecond

// captureMark records that device samples up to end had arrived at unix-nanos at, so each
// frame is stamped with the callback that completed it (the start of capture-to-VAD latency).
type captureMark struct {
	end int64
	at  int64
}

// CaptureOption configures OpenCapture.
type CaptureOption func(*Capture) error

// WithInputDevice selects the input device by index or name ("" = default).
func WithInputDevice(sel string) CaptureOption {
	return func(c *Capture) error { c.device = sel; return nil }
}

// WithCaptureBuffer sets how many 20 ms frames wait for a slow reader before the oldest is
// dropped (default 50, one second).
func WithCaptureBuffer(frames int) CaptureOption {
	return func(c *Capture) error {
		if frames < 1 || frames > 3000 {
			return fmt.Errorf("%w: capture buffer of %d frames", ErrInvalidConfig, frames)
		}
		c.buffer = frames
		return nil
	}
}

// WithCaptureLogger sets the logger.
func WithCaptureLogger(l *slog.Logger) CaptureOption {
	return func(c *Capture) error { return setLogger(&c.log, l) }
}

// OpenCapture opens (but does not start) the input device at 16 kHz, or at the device's own
// rate with resampling when it does not take 16 kHz.
func OpenCapture(opts ...CaptureOption) (*Capture, error) {
	c := &Capture{buffer: 50, log: slog.New(slog.DiscardHandler), wake: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	ms, err := openMono(c.device, Input, 50, c.callback)
	if err != nil {
		return nil, err
	}
	c.stream, c.rate, c.release = ms.stream, ms.rate, ms.release
	dev := ms.dev
	c.ringMax = int(c.rate) * c.buffer / 50
	c.frames = make(chan Frame, c.buffer)
	c.info = DeviceInfo{Index: dev.Index, Name: dev.Name, MaxInputChannels: dev.MaxInputChannels, DefaultSampleRate: dev.DefaultSampleRate}
	c.log.Info("capture opened", "device", dev.Name, "rate", c.rate)
	return c, nil
}

// Device is the device in use; Rate the rate it was opened at.
func (c *Capture) Device() DeviceInfo { return c.info }

// Rate is the device sample rate (16000 unless resampling).
func (c *Capture) Rate() float64 { return c.rate }

// Frames delivers 16 kHz frames; closed after Close or ctx cancellation.
func (c *Capture) Frames() <-chan Frame { return c.frames }

// Early reports device samples discarded for arriving faster than real time.
func (c *Capture) Early() uint64 { return c.early.Load() }

// Dropped reports audio lost to a slow reader, in 16 kHz samples.
func (c *Capture) Dropped() uint64 {
	return c.dropped.Load()*SampleRate/uint64(c.rate) + c.droppedF.Load()*FrameSamples
}

// callback runs on PortAudio's thread: copy, trim, signal; nothing that can block.
func (c *Capture) callback(in []int16) {
	now := time.Now().UnixNano()
	c.mu.Lock()
	if c.first == 0 {
		c.first = now
	}
	if due := int64(float64(now-c.first+int64(maxAhead)) * c.rate / 1e9); c.total+int64(len(in)) > due {
		c.mu.Unlock()
		c.early.Add(uint64(len(in)))
		return
	}
	c.total += int64(len(in))
	if len(c.marks) < 4*c.buffer { // bounded: a stalled reader must not grow it
		c.marks = append(c.marks, captureMark{end: c.total, at: now})
	} else {
		c.marks[len(c.marks)-1] = captureMark{end: c.total, at: now}
	}
	c.ring = append(c.ring, in...)
	if over := len(c.ring) - c.ringMax; over > 0 {
		c.dropped.Add(uint64(over))
		c.ring = c.ring[:copy(c.ring, c.ring[over:])]
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Start starts the stream and the framing goroutine; ctx cancellation or Close stops both.
func (c *Capture) Start(ctx context.Context) error {
	if !c.started.CompareAndSwap(false, true) {
		return ErrAlreadyStarted
	}
	fail := func(err error) error { // nothing will run: end Frames so readers and Close return
		close(c.frames)
		close(c.done)
		return err
	}
	c.closeMu.Lock()
	closed := c.closed
	c.closeMu.Unlock()
	if closed {
		return fail(ErrClosed)
	}
	var rs *Resampler
	if c.rate != SampleRate {
		var err error
		if rs, err = NewResampler(int(c.rate), SampleRate); err != nil {
			return fail(err)
		}
	}
	if err := c.stream.Start(); err != nil {
		return fail(fmt.Errorf("%w: start input: %w", ErrPortAudio, err))
	}
	go c.run(ctx, rs)
	return nil
}

func (c *Capture) run(ctx context.Context, rs *Resampler) {
	defer close(c.done)
	defer close(c.frames)
	var pending []int16
	var raw []int16
	var marks []captureMark
	var offset int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.stop:
			return
		case <-c.wake:
		}
		c.mu.Lock()
		raw = append(raw[:0], c.ring...)
		c.ring = c.ring[:0]
		marks = append(marks, c.marks...)
		c.marks = c.marks[:0]
		c.mu.Unlock()
		if rs != nil {
			pending = rs.Process(raw, pending)
		} else {
			pending = append(pending, raw...)
		}
		for len(pending) >= FrameSamples {
			// The device sample that completes this frame, and the callback that brought it.
			need := int64(float64(offset+FrameSamples) * c.rate / SampleRate)
			for len(marks) > 1 && marks[0].end < need {
				marks = marks[1:]
			}
			var at time.Time
			if len(marks) > 0 {
				at = time.Unix(0, marks[0].at)
			}
			f := Frame{Samples: append([]int16(nil), pending[:FrameSamples]...), Offset: offset, Captured: at}
			offset += FrameSamples
			pending = pending[:copy(pending, pending[FrameSamples:])]
			select {
			case c.frames <- f:
			default: // reader behind: drop the oldest queued frame, keep the newest
				select {
				case <-c.frames:
					c.droppedF.Add(1)
				default:
				}
				select {
				case c.frames <- f:
				default:
					c.droppedF.Add(1)
				}
			}
		}
	}
}

// Close stops the stream, ends Frames and releases PortAudio. It is safe to call twice.
func (c *Capture) Close() error {
	c.closeMu.Lock()
	if c.closed {
		c.closeMu.Unlock()
		return nil
	}
	c.closed = true
	c.closeMu.Unlock()
	close(c.stop)
	var err error
	if c.started.CompareAndSwap(false, true) { // never started: Start now fails, close here
		close(c.frames)
	} else {
		if e := c.stream.Stop(); e != nil {
			err = fmt.Errorf("%w: stop input: %w", ErrPortAudio, e)
		}
		<-c.done
	}
	if e := c.stream.Close(); e != nil && err == nil {
		err = fmt.Errorf("%w: close input: %w", ErrPortAudio, e)
	}
	c.release()
	if n := c.Dropped(); n > 0 {
		c.log.Warn("capture dropped audio", "samples", n)
	}
	if n := c.early.Load(); n > 0 {
		c.log.Warn("capture discarded audio delivered faster than real time (a null device?)", "deviceSamples", n)
	}
	return err
}
