package audio

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gordonklaus/portaudio"
)

// Sink plays examiner speech: the speaker (Player) or a room track.
type Sink interface {
	// Play blocks until the clip has played, Stop was called, or ctx ended.
	Play(ctx context.Context, c Clip) (PlayResult, error)
	// Stop cuts the current clip short (barge-in); Play then returns with Interrupted set.
	Stop()
	Close() error
}

// Pauser is a Sink that can hold its playout where it is and carry on from there: Pause holds
// the clip being played (and any played after it) without dropping a sample, Resume plays on
// from the held sample, and Stop, while held, cuts as usual (and ends the hold). Play keeps
// blocking while held, and its PlayResult counts only the audio played, never the hold. A room
// track is one (the voice path pauses the examiner when the candidate starts to speak, then
// decides on the words); a sink that is not plays on until it is stopped.
type Pauser interface {
	Pause()
	Resume()
}

// PlayResult says how much of a clip was heard.
type PlayResult struct {
	Played      time.Duration
	Total       time.Duration
	Interrupted bool
}

// Fraction is the share of the clip that was played, 0..1.
func (r PlayResult) Fraction() float64 {
	if r.Total <= 0 {
		return 1
	}
	return min(1, float64(r.Played)/float64(r.Total))
}

// Player plays mono clips through a PortAudio output stream. The stream runs from Open to
// Close and plays silence between clips, so starting a clip costs no device setup; Stop takes
// effect at the next 10 ms callback.
type Player struct {
	device  string
	log     *slog.Logger
	release func()
	stream  *portaudio.Stream
	rate    float64
	info    DeviceInfo

	mu       sync.Mutex
	buf      []int16 // device-rate samples of the current clip
	pos      int
	stopped  bool
	finished chan struct{} // closed when the callback has taken the whole clip
	stopCh   chan struct{} // closed by Stop
	closed   bool
	playMu   sync.Mutex // one Play at a time
}

// PlayerOption configures OpenPlayer.
type PlayerOption func(*Player) error

// WithOutputDevice selects the output device by index or name ("" = default).
func WithOutputDevice(sel string) PlayerOption {
	return func(p *Player) error { p.device = sel; return nil }
}

// WithPlayerLogger sets the logger.
func WithPlayerLogger(l *slog.Logger) PlayerOption {
	return func(p *Player) error { return setLogger(&p.log, l) }
}

// OpenPlayer opens and starts the output device (mono, 16 kHz or the device's rate).
func OpenPlayer(opts ...PlayerOption) (*Player, error) {
	p := &Player{log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		if err := o(p); err != nil {
			return nil, err
		}
	}
	ms, err := openMono(p.device, Output, 100, p.callback)
	if err != nil {
		return nil, err
	}
	p.stream, p.rate, p.release = ms.stream, ms.rate, ms.release
	dev := ms.dev
	if err := p.stream.Start(); err != nil {
		p.stream.Close()
		p.release()
		return nil, fmt.Errorf("%w: start output %q: %w", ErrPortAudio, dev.Name, err)
	}
	p.info = DeviceInfo{Index: dev.Index, Name: dev.Name, MaxOutputChannels: dev.MaxOutputChannels, DefaultSampleRate: dev.DefaultSampleRate}
	p.log.Info("playback opened", "device", dev.Name, "rate", p.rate)
	return p, nil
}

// Device is the device in use.
func (p *Player) Device() DeviceInfo { return p.info }

// Rate is the device sample rate.
func (p *Player) Rate() float64 { return p.rate }

func (p *Player) callback(out []int16) {
	p.mu.Lock()
	n := 0
	if p.buf != nil && !p.stopped {
		n = copy(out, p.buf[p.pos:])
		p.pos += n
		if p.pos >= len(p.buf) {
			p.finish()
		}
	}
	p.mu.Unlock()
	clear(out[n:])
}

// finish ends the current clip; p.mu is held.
func (p *Player) finish() {
	if p.finished != nil {
		close(p.finished)
		p.finished = nil
	}
}

// Play plays c (any rate; resampled to the device) and returns how much was heard.
func (p *Player) Play(ctx context.Context, c Clip) (PlayResult, error) {
	p.playMu.Lock()
	defer p.playMu.Unlock()
	total := c.Duration()
	if len(c.Samples) == 0 {
		return PlayResult{Total: total}, nil
	}
	samples := c.Samples
	if c.Rate != int(p.rate) {
		var err error
		if samples, err = Resample(c.Samples, c.Rate, int(p.rate)); err != nil {
			return PlayResult{}, err
		}
	}
	done, stop := make(chan struct{}), make(chan struct{})
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return PlayResult{}, ErrClosed
	}
	p.buf, p.pos, p.stopped, p.finished, p.stopCh = samples, 0, false, done, stop
	p.mu.Unlock()
	// A device that takes buffers faster than real time (ALSA's null device does) must not make
	// speech end early: the clip lasts at least its own duration from the first buffer.
	start := time.Now()
	var ctxErr error
	select {
	case <-done:
		timer := time.NewTimer(total - time.Since(start))
		select {
		case <-timer.C:
		case <-stop:
		case <-ctx.Done():
			p.Stop()
			ctxErr = ctx.Err()
		}
		timer.Stop()
	case <-stop:
	case <-ctx.Done():
		p.Stop()
		ctxErr = ctx.Err()
	}
	elapsed := time.Since(start)
	p.mu.Lock()
	played := min(time.Duration(p.pos)*time.Second/time.Duration(p.rate), elapsed)
	interrupted := p.stopped
	p.buf, p.pos, p.finished = nil, 0, nil
	p.mu.Unlock()
	if !interrupted {
		played = total
	}
	return PlayResult{Played: min(played, total), Total: total, Interrupted: interrupted}, ctxErr
}

// Stop cuts the current clip; the callback plays silence from its next buffer.
func (p *Player) Stop() {
	p.mu.Lock()
	if p.buf != nil && !p.stopped {
		p.stopped = true
		close(p.stopCh)
	}
	p.mu.Unlock()
}

// Close stops the stream and releases PortAudio. It is safe to call twice.
func (p *Player) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.Stop()
	var err error
	if e := p.stream.Stop(); e != nil {
		err = fmt.Errorf("%w: stop output: %w", ErrPortAudio, e)
	}
	if e := p.stream.Close(); e != nil && err == nil {
		err = fmt.Errorf("%w: close output: %w", ErrPortAudio, e)
	}
	p.release()
	return err
}
