package livekit

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/livekit/media-sdk"
	protoLogger "github.com/livekit/protocol/logger"
	"github.com/pion/webrtc/v4"
	pmedia "github.com/pion/webrtc/v4/pkg/media"
)

const (
	// dtxFrame is one paced frame, as the SDK's PCMLocalTrack paces.
	dtxFrame = 10 * time.Millisecond
	// dtxTail is how many frames of real silence follow the last queued audio. The first
	// pushes out what the encoder still holds of the last syllable (Opus looks 6.5 ms ahead,
	// a resampler under 2 ms); the rest make the last packet a receiver decodes a silent one,
	// so a decoder that conceals the gap (WebRTC's NetEq, any PLC) stretches silence rather
	// than the end of a word.
	dtxTail = 5
	// opusRate is the highest rate the encoder runs at (the SDK's DefaultOpusSampleRate).
	opusRate = 48000
)

// dtxTrack is a mono PCM track that sends nothing while it has nothing to say, in the manner of
// Opus DTX: it paces and encodes only the audio written to it (10 ms a tick, with the
// media-sdk Opus encoder at the source's own rate where it can: newOpusChain), then dtxTail
// frames of silence, then nothing. The time it sends nothing is skipped on the RTP clock
// (pion's WriteSample with no data): sequence numbers stay contiguous and timestamps jump,
// which receivers read as DTX, not loss. PCMLocalTrack instead encodes and sends a frame of
// zeros on every empty tick, which for dozens of mostly silent bots on one worker was most of
// its CPU. (A Go subscriber, whose pion sees a remote track only once a packet arrives, still
// sees a silent bot's track at once: the LiveKit server sends Go clients a few silent frames
// on a subscribed track that carries nothing.)
//
// Its methods mirror PCMLocalTrack's, so Voice uses it the same way: writes before the track
// is bound are dropped, WaitForPlayout returns once the queue is empty, and after Close the
// queue still drains.
type dtxTrack struct {
	*webrtc.TrackLocalStaticSample
	pcm  media.PCM16Writer // the Opus chain (opusenc.go) → the sample track; Close closes the chain
	rate int               // the source rate: a frame is frameSamples(rate, n) of it

	mu      sync.Mutex
	queue   []int16
	bound   bool
	closed  bool
	paused  bool          // Pause: the queue is held, not sent (the tail of silence still is)
	emptied chan struct{} // closed (and replaced) whenever the queue becomes empty
	// taken counts the samples ever taken off the queue, sent the samples ever handed to the
	// encoder and the RTP track (both at the source rate): a writer knows where its audio sits
	// in the stream (position) and how much of it has really left (progress), whatever the
	// wall clock says. waiters are told (reached) when sent gets to their position, the queue
	// is cleared or the pacer stops (ended).
	taken, sent int64
	waiters     []sentWaiter
	ended       bool
	// onSend, when set (tests: export_test.go), is told of each frame of queued audio as the
	// pacer sends it: the time a sample really left, on a machine whose pacer runs late.
	onSend func(frame []int16, at time.Time)
	wake   chan struct{} // a write or Close for an idle pacer
	start  sync.Once     // the pacer, or the writers' clean-up if it never started
}

func newDTXTrack(rate int, logger protoLogger.Logger) (*dtxTrack, error) {
	if rate <= 0 {
		return nil, errors.New("invalid source sample rate")
	}
	var id [4]byte
	_, _ = rand.Read(id[:])
	sfx := hex.EncodeToString(id[:])
	track, err := webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus}, "examtui_track"+sfx, "examtui_stream"+sfx)
	if err != nil {
		return nil, err
	}
	pcm, err := newOpusChain(track, rate, logger)
	if err != nil {
		return nil, err
	}
	return &dtxTrack{
		TrackLocalStaticSample: track,
		pcm:                    pcm,
		rate:                   rate,
		emptied:                make(chan struct{}),
		wake:                   make(chan struct{}, 1),
	}, nil
}

// Bind starts the pacer once the track is bound to the publisher's connection.
func (t *dtxTrack) Bind(ctx webrtc.TrackLocalContext) (webrtc.RTPCodecParameters, error) {
	params, err := t.TrackLocalStaticSample.Bind(ctx)
	if err != nil {
		return params, err
	}
	t.mu.Lock()
	t.bound = true
	closed := t.closed
	t.mu.Unlock()
	if !closed {
		t.start.Do(func() { go t.run() })
	}
	return params, nil
}

// WriteSample queues mono PCM at the source rate.
func (t *dtxTrack) WriteSample(chunk []int16) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errors.New("track is closed")
	}
	if len(chunk) == 0 || !t.bound {
		return nil
	}
	t.queue = append(t.queue, chunk...)
	t.signal()
	return nil
}

// signal wakes an idle pacer. The caller holds t.mu.
func (t *dtxTrack) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// WaitForPlayout blocks until everything written has been taken off the queue for sending.
func (t *dtxTrack) WaitForPlayout() {
	t.mu.Lock()
	if len(t.queue) == 0 {
		t.mu.Unlock()
		return
	}
	ch := t.emptied
	t.mu.Unlock()
	<-ch
}

// Pause holds the queue: the pacer sends the tail of silence and then nothing, and the queue
// waits, whole, for Resume (or ClearQueue, which drops it and ends the hold).
func (t *dtxTrack) Pause() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.paused = true
}

// Resume sends the held queue on from where Pause held it.
func (t *dtxTrack) Resume() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.paused = false
	t.signal()
}

// ClearQueue drops everything not yet taken for sending, and ends a hold.
func (t *dtxTrack) ClearQueue() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.queue, t.paused = nil, false
	t.emptiedLocked()
	t.releaseLocked(true)
}

// sentWaiter is a channel to close once the track has sent up to at.
type sentWaiter struct {
	at int64
	ch chan struct{}
}

// reached returns a channel closed once the track has sent the samples before position n,
// or sooner when the queue is cleared or the pacer stops (the caller looks again).
func (t *dtxTrack) reached(n int64) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch := make(chan struct{})
	if t.sent >= n || t.ended {
		close(ch)
		return ch
	}
	t.waiters = append(t.waiters, sentWaiter{at: n, ch: ch})
	return ch
}

// releaseLocked closes the waiters the track has sent far enough for (all of them: the queue
// was cleared or the pacer stopped). The caller holds t.mu.
func (t *dtxTrack) releaseLocked(all bool) {
	kept := t.waiters[:0]
	for _, w := range t.waiters {
		if all || t.sent >= w.at {
			close(w.ch)
			continue
		}
		kept = append(kept, w)
	}
	clear(t.waiters[len(kept):])
	t.waiters = kept
}

// position is where the next sample written will sit in the track's stream: the samples
// taken for sending so far plus those queued.
func (t *dtxTrack) position() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.taken + int64(len(t.queue))
}

// progress is how many samples have been sent so far, and whether the pacer has stopped for
// good.
func (t *dtxTrack) progress() (sent int64, ended bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sent, t.ended
}

// markSent counts the n samples of frame as handed to the encoder.
func (t *dtxTrack) markSent(frame []int16, n int) {
	t.mu.Lock()
	t.sent += int64(n)
	t.releaseLocked(false)
	onSend := t.onSend
	t.mu.Unlock()
	if onSend != nil {
		onSend(frame[:n], time.Now())
	}
}

// markEnded says the pacer has stopped: nothing queued will be sent any more.
func (t *dtxTrack) markEnded() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ended = true
	t.releaseLocked(true)
}

func (t *dtxTrack) emptiedLocked() {
	close(t.emptied)
	t.emptied = make(chan struct{})
}

// Close stops accepting writes; the pacer sends what is queued and then stops.
func (t *dtxTrack) Close() error {
	t.mu.Lock()
	t.closed = true
	t.signal()
	t.mu.Unlock()
	t.start.Do(t.closeWriters) // never bound: no pacer will
	return nil
}

func (t *dtxTrack) closeWriters() {
	_ = t.pcm.Close()
	t.markEnded()
}

// take returns the next frame of size samples (padded with silence) and how many of its
// samples were queued audio, or nil with the queue empty or held.
func (t *dtxTrack) take(size int) (frame media.PCM16Sample, n int, closed bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.queue) == 0 || (t.paused && !t.closed) {
		return nil, 0, t.closed && len(t.queue) == 0
	}
	frame = make(media.PCM16Sample, size)
	n = copy(frame, t.queue)
	t.queue = t.queue[n:]
	t.taken += int64(n)
	if len(t.queue) == 0 {
		t.queue = nil
		t.emptiedLocked()
	}
	return frame, n, t.closed
}

// maxCatchUp is how many frames the pacer sends at once, past the one a tick is for, when it
// has fallen behind the wall clock: up to 110 ms of audio per tick, so a pacer starved for a
// while gets back to real time within a few ticks, and a receiver's jitter buffer gets no
// burst longer than it absorbs.
const maxCatchUp = 10

// run paces the track: one frame a tick while there is audio or tail, else asleep until audio
// arrives or Close. clock is the wall time the RTP timestamp has reached; the time slept is
// skipped on it in whole frames, so timestamps follow the wall clock across silences. While
// speaking, a pacer that missed ticks (a starved process: a ticker drops the ticks it could not
// deliver) is behind the clock: it sends the frames that are due at once, up to maxCatchUp a
// tick, instead of staying behind for the rest of the line, as the SDK's pacer does (a live
// source fed without pause then fell further behind with every stall, and its listener heard
// the line late and in pieces). Nothing is dropped either way.
func (t *dtxTrack) run() {
	defer t.closeWriters()
	silence := make(media.PCM16Sample, frameSamples(t.rate, 0)+1)
	tick := time.NewTicker(dtxFrame)
	defer tick.Stop()
	clock := time.Now()
	tail, burst := 0, 0
	var frames int64 // sent so far
	send := func(frame media.PCM16Sample) {
		_ = t.pcm.WriteSample(frame)
		clock = clock.Add(dtxFrame)
		frames++
	}
	for {
		size := frameSamples(t.rate, frames)
		frame, n, closed := t.take(size)
		switch {
		case frame != nil:
			send(frame)
			t.markSent(frame, n)
			tail = dtxTail
		case tail > 0:
			send(silence[:size])
			tail--
		case closed:
			return
		default:
			tick.Stop()
			<-t.wake // a write or Close
			if gap := time.Since(clock).Truncate(dtxFrame); gap > 0 {
				_ = t.TrackLocalStaticSample.WriteSample(pmedia.Sample{Duration: gap})
				clock = clock.Add(gap)
			}
			tick.Reset(dtxFrame)
			continue
		}
		if time.Since(clock) >= dtxFrame && burst < maxCatchUp {
			burst++ // behind the clock: the next frame is due already
			continue
		}
		burst = 0
		<-tick.C
	}
}
