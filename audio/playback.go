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
// track and the Player are (the voice path pauses the examiner when the candidate starts to
// speak, then decides on the words); a sink that is not plays on until it is stopped. Voice
// records a held line's audio where it was heard, around its holds.
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
		if r.Interrupted {
			return 0 // cut before any of it came (a sentence still being synthesised)
		}
		return 1
	}
	return min(1, float64(r.Played)/float64(r.Total))
}

// Player plays mono clips through a PortAudio output stream. The stream runs from Open to
// Close and plays silence between clips, so starting a clip costs no device setup; Stop takes
// effect at the next 10 ms callback. It is an audio.Pauser: Pause holds the playout position
// in the callback (silence from the next buffer, the rest of the clip kept), Resume plays on
// from the held sample, and Stop drops what is left.
type Player struct {
	device  string
	log     *slog.Logger
	release func()
	stream  *portaudio.Stream
	rate    float64
	info    DeviceInfo
	lead    time.Duration // how far the callback may hand out a clip ahead of its clock

	mu       sync.Mutex
	buf      []int16 // device-rate samples of the current clip
	pos      int
	start    time.Time     // when the current clip began
	heldAt0  time.Duration // the hold counter (held) when the current clip began
	stopped  bool
	finished chan struct{} // closed when the callback has taken the whole clip
	stopCh   chan struct{} // closed by Stop
	closed   bool
	playMu   sync.Mutex // one Play at a time

	// The hold (Pause, Resume): while held the callback hands out silence and pos stays;
	// heldFor counts the holds ended so far, heldAt is when the current one began; changed is
	// closed (and replaced) at every Pause and Resume, so a waiting Play reads the clock again.
	held    bool
	heldAt  time.Time
	heldFor time.Duration
	changed chan struct{}
	tap     func(out []int16) // tests: each buffer the callback filled (p.mu held)
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
	p := &Player{log: slog.New(slog.DiscardHandler), changed: make(chan struct{})}
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
	p.lead = playLead
	if info := p.stream.Info(); info != nil {
		p.lead += 2 * info.OutputLatency
	}
	p.info = DeviceInfo{Index: dev.Index, Name: dev.Name, MaxOutputChannels: dev.MaxOutputChannels, DefaultSampleRate: dev.DefaultSampleRate}
	p.log.Info("playback opened", "device", dev.Name, "rate", p.rate)
	return p, nil
}

// Device is the device in use.
func (p *Player) Device() DeviceInfo { return p.info }

// Rate is the device sample rate.
func (p *Player) Rate() float64 { return p.rate }

// playLead is how far ahead of a clip's own clock (the time since it began, less any hold)
// the callback may hand its samples to the device, on top of twice the stream's output
// latency. A sound card asks for a buffer as one drains, so it stays within its latency and
// never meets the limit (which would put silence into the line); a device that takes buffers
// faster than real time (ALSA's null device does) would otherwise have the whole clip at
// once, and a pause would hold nothing.
const playLead = 200 * time.Millisecond

func (p *Player) callback(out []int16) {
	p.mu.Lock()
	n := 0
	if p.buf != nil && !p.stopped && !p.held {
		ahead := p.clipTime(time.Now()) + p.lead
		limit := min(len(p.buf), max(p.pos, int(ahead.Seconds()*p.rate)))
		n = copy(out, p.buf[p.pos:limit])
		p.pos += n
		if p.pos >= len(p.buf) {
			p.finish()
		}
	}
	clear(out[n:])
	if p.tap != nil {
		p.tap(out)
	}
	p.mu.Unlock()
}

// finish ends the current clip; p.mu is held.
func (p *Player) finish() {
	if p.finished != nil {
		close(p.finished)
		p.finished = nil
	}
}

// heldTotal is how long the player has been held so far, the hold going on included; p.mu is
// held.
func (p *Player) heldTotal(now time.Time) time.Duration {
	d := p.heldFor
	if p.held {
		d += now.Sub(p.heldAt)
	}
	return d
}

// clipTime is how long the current clip has been playing at now: the time since it began less
// the holds since; p.mu is held.
func (p *Player) clipTime(now time.Time) time.Duration {
	return now.Sub(p.start) - (p.heldTotal(now) - p.heldAt0)
}

// Play plays c (any rate; resampled to the device) and returns how much was heard. A hold
// (Pause) keeps it waiting and is not counted as played.
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
	now := time.Now()
	p.buf, p.pos, p.stopped, p.finished, p.stopCh = samples, 0, false, done, stop
	p.start, p.heldAt0 = now, p.heldTotal(now)
	p.mu.Unlock()
	// The clip lasts at least its own duration of unheld time from its start, however fast the
	// device takes buffers.
	ctxErr := p.wait(ctx, total, done, stop)
	p.mu.Lock()
	played := min(time.Duration(p.pos)*time.Second/time.Duration(p.rate), p.clipTime(time.Now()))
	interrupted := p.stopped
	p.buf, p.pos, p.finished = nil, 0, nil
	p.mu.Unlock()
	if !interrupted {
		played = total
	}
	return PlayResult{Played: min(max(played, 0), total), Total: total, Interrupted: interrupted}, ctxErr
}

// wait waits for the current clip to end: the callback has taken all of it (done) and total of
// unheld time has passed since it began; or Stop (stop), or ctx, which stops it.
func (p *Player) wait(ctx context.Context, total time.Duration, done, stop <-chan struct{}) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		p.mu.Lock()
		changed, held, left := p.changed, p.held, total-p.clipTime(time.Now())
		p.mu.Unlock()
		var tick <-chan time.Time
		if done == nil && !held {
			if left <= 0 {
				return nil
			}
			if timer == nil {
				timer = time.NewTimer(left)
			} else {
				timer.Reset(left)
			}
			tick = timer.C
		}
		select {
		case <-done:
			done = nil
		case <-tick:
		case <-changed:
		case <-stop:
			return nil
		case <-ctx.Done():
			p.Stop()
			return ctx.Err()
		}
	}
}

// Stop cuts the current clip (the rest of it is dropped) and ends a hold; the callback plays
// silence from its next buffer.
func (p *Player) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.buf != nil && !p.stopped {
		p.stopped = true
		close(p.stopCh)
	}
	p.endHold(time.Now())
}

// Pause holds the playout where it is (audio.Pauser): from its next buffer the callback plays
// silence and keeps the rest of the clip, and a clip played while held waits too. Resume plays
// on from the held sample; Stop cuts as usual.
func (p *Player) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held || p.closed {
		return
	}
	p.held, p.heldAt = true, time.Now()
	p.changedLocked()
}

// Resume plays on from where Pause held.
func (p *Player) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endHold(time.Now())
}

// endHold ends a hold at now; p.mu is held.
func (p *Player) endHold(now time.Time) {
	if !p.held {
		return
	}
	p.heldFor += now.Sub(p.heldAt)
	p.held = false
	p.changedLocked()
}

// changedLocked wakes a waiting Play to read the hold again; p.mu is held.
func (p *Player) changedLocked() {
	if p.changed != nil {
		close(p.changed)
	}
	p.changed = make(chan struct{})
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
