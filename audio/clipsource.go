package audio

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// ClipSource is a Source that plays recorded 16 kHz audio as if it came from a microphone:
// `examtui audio vad`, scripted turns and tests use it. Paced, it delivers one frame per 20 ms
// of wall time; unpaced, as fast as the reader takes them (the VAD's timeline is the sample
// offsets either way, so the results are the same).
type ClipSource struct {
	samples   []int16
	paced     bool
	frames    chan Frame
	stop      chan struct{}
	done      chan struct{}
	started   atomic.Bool
	closeOnce sync.Once
}

// NewClipSource returns a source over samples (16 kHz mono).
func NewClipSource(samples []int16, paced bool) *ClipSource {
	return &ClipSource{samples: samples, paced: paced, frames: make(chan Frame, 8),
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Frames delivers the clip; closed at its end, on Close or on ctx cancellation.
func (s *ClipSource) Frames() <-chan Frame { return s.frames }

// Start begins delivery.
func (s *ClipSource) Start(ctx context.Context) error {
	if !s.started.CompareAndSwap(false, true) {
		return ErrAlreadyStarted
	}
	go s.run(ctx)
	return nil
}

func (s *ClipSource) run(ctx context.Context) {
	defer close(s.done)
	defer close(s.frames)
	var tick *time.Ticker
	if s.paced {
		tick = time.NewTicker(FrameDuration)
		defer tick.Stop()
	}
	for off := 0; off < len(s.samples); off += FrameSamples {
		if tick != nil {
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			case <-s.stop:
				return
			}
		}
		f := make([]int16, FrameSamples)
		copy(f, s.samples[off:min(off+FrameSamples, len(s.samples))])
		select {
		case s.frames <- Frame{Samples: f, Offset: int64(off), Captured: time.Now()}:
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		}
	}
}

// Close stops delivery; safe to call twice.
func (s *ClipSource) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		if s.started.CompareAndSwap(false, true) { // never started: nothing else will close them
			close(s.frames)
			close(s.done)
		}
		<-s.done
	})
	return nil
}
