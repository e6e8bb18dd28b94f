package livekit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// Voice is a participant's outgoing audio track: PCM written to it is encoded to Opus and
// played out in real time. The underlying SDK track is replaced when the connection is rebuilt;
// writes in between are dropped, as live audio would be.
type Voice struct {
	rate   int
	name   string
	log    *slog.Logger
	silent bool // publishes a track without audio (WithoutSpeech)

	mu        sync.Mutex
	track     *dtxTrack
	playoutAt time.Time     // when what has been queued finishes playing
	cleared   chan struct{} // closed (and replaced) by Clear, so waiting players stop at once
	pausedAt  time.Time     // when Pause held the track (zero: not held)
	heldFor   time.Duration // the time held by pauses that have ended
	resumed   chan struct{} // closed (and replaced) when a hold ends (Resume, Clear)

	heard     chan struct{} // closed once someone subscribed to the track (speech_listener.go)
	heardOnce sync.Once
}

func newVoice(rate int, name string, log *slog.Logger) *Voice {
	return &Voice{rate: rate, name: name, log: log, cleared: make(chan struct{}), resumed: make(chan struct{}), heard: make(chan struct{})}
}

// clearedCh is closed by the next Clear.
func (v *Voice) clearedCh() <-chan struct{} {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cleared
}

// publish creates a fresh track and publishes it on lk.
func (v *Voice) publish(lk *lksdk.Room) error {
	if v.silent {
		return v.publishSilent(lk)
	}
	track, err := newDTXTrack(v.rate, sdkLogger(v.log))
	if err != nil {
		return fmt.Errorf("create %s track: %w", v.name, err)
	}
	_, err = lk.LocalParticipant.PublishTrack(track, &lksdk.TrackPublicationOptions{
		Name:   v.name,
		Source: lkproto.TrackSource_MICROPHONE,
	})
	if err != nil {
		_ = track.Close()
		return fmt.Errorf("publish %s track: %w", v.name, err)
	}
	v.mu.Lock()
	old := v.track
	v.track = track
	v.playoutAt = time.Time{}
	if !v.pausedAt.IsZero() {
		track.Pause() // the hold outlives the connection it began on
	}
	v.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	return nil
}

// SampleRate is the rate Write expects.
func (v *Voice) SampleRate() int { return v.rate }

// Write queues mono PCM at SampleRate for playout. It does not wait for the audio to play.
func (v *Voice) Write(samples []int16) error {
	if len(samples) == 0 {
		return nil
	}
	if v.silent {
		return ErrNoSpeech
	}
	v.mu.Lock()
	track := v.track
	now := time.Now()
	if !v.pausedAt.IsZero() {
		now = v.pausedAt // held: the queue waits where it is
	}
	if v.playoutAt.Before(now) {
		v.playoutAt = now
	}
	v.playoutAt = v.playoutAt.Add(time.Duration(len(samples)) * time.Second / time.Duration(v.rate))
	v.mu.Unlock()
	if track == nil {
		return ErrNotConnected
	}
	if err := track.WriteSample(samples); err != nil {
		return fmt.Errorf("%w: %w", ErrNotConnected, err)
	}
	return nil
}

// Sent returns a channel closed once the track has taken everything written so far off its
// queue for encoding and sending. That is the moment the audio really leaves, which under load
// is later than its wall-clock playout: the track's pacer (dtxtrack.go) takes one 10 ms frame
// per tick of a ticker, a ticker that fires late drops ticks, and the pacer catches up only
// up to maxCatchUp frames a tick, so a track fed without pause (a live microphone) on a
// starved machine can still be behind. A writer that can wait, or skip silence, keeps the
// queue short by watching this. The channel is closed
// at once without a track; otherwise one goroutine waits for the queue to empty (the track
// drains it even after Close, and Clear empties it).
func (v *Voice) Sent() <-chan struct{} {
	ch := make(chan struct{})
	v.mu.Lock()
	track := v.track
	v.mu.Unlock()
	if track == nil {
		close(ch)
		return ch
	}
	go func() {
		track.WaitForPlayout()
		close(ch)
	}()
	return ch
}

// position is the voice's current track and where the next sample written to it will sit in
// its stream (nil: no track).
func (v *Voice) position() (*dtxTrack, int64) {
	v.mu.Lock()
	track := v.track
	v.mu.Unlock()
	if track == nil {
		return nil, 0
	}
	return track, track.position()
}

// Clear drops everything queued and not yet played: the candidate barged in, or an immediate
// admin instruction interrupts the examiner.
func (v *Voice) Clear() {
	v.mu.Lock()
	track := v.track
	v.playoutAt = time.Time{}
	close(v.cleared)
	v.cleared = make(chan struct{})
	v.endHold(time.Now())
	v.mu.Unlock()
	if track != nil {
		track.ClearQueue()
	}
}

// Pause holds the track's playout where it is (audio.Pauser): what is queued and what is
// written after stays queued, whole, until Resume sends it on from the held sample, or Clear
// drops it. The receiver hears the track fall silent within a 10 ms frame.
func (v *Voice) Pause() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.silent || !v.pausedAt.IsZero() {
		return
	}
	v.pausedAt = time.Now()
	if v.track != nil {
		v.track.Pause()
	}
}

// Resume sends on what Pause held.
func (v *Voice) Resume() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.pausedAt.IsZero() {
		return
	}
	now := time.Now()
	if v.playoutAt.After(v.pausedAt) {
		v.playoutAt = now.Add(v.playoutAt.Sub(v.pausedAt))
	}
	v.endHold(now)
	if v.track != nil {
		v.track.Resume()
	}
}

// endHold ends a hold at now; v.mu is held.
func (v *Voice) endHold(now time.Time) {
	if v.pausedAt.IsZero() {
		return
	}
	v.heldFor += now.Sub(v.pausedAt)
	v.pausedAt = time.Time{}
	close(v.resumed)
	v.resumed = make(chan struct{})
}

// Held is how long the track has been held by pauses so far (the one going on included): a
// player counting what was heard leaves it out.
func (v *Voice) Held() time.Duration {
	v.mu.Lock()
	defer v.mu.Unlock()
	d := v.heldFor
	if !v.pausedAt.IsZero() {
		d += time.Since(v.pausedAt)
	}
	return d
}

// playout is how much queued audio is still to play and, while the track is held, a channel
// closed when the hold ends (nil while it plays).
func (v *Voice) playout() (time.Duration, <-chan struct{}) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.pausedAt.IsZero() {
		return max(0, v.playoutAt.Sub(v.pausedAt)), v.resumed
	}
	return max(0, time.Until(v.playoutAt)), nil
}

// Queued is how much queued audio is still to play (while held: what the hold keeps).
func (v *Voice) Queued() time.Duration {
	d, _ := v.playout()
	return d
}

// WaitPlayout blocks until the queued audio has played (give or take one 10 ms frame) or ctx
// ends; a hold (Pause) makes it wait for the Resume or Clear.
func (v *Voice) WaitPlayout(ctx context.Context) error {
	return v.waitPlayout(ctx, nil)
}

// errCleared ends waitPlayout when the track was cleared (a cut), not played out.
var errCleared = errors.New("the track was cleared")

// waitPlayout is WaitPlayout that also ends, with errCleared, when stop is closed.
func (v *Voice) waitPlayout(ctx context.Context, stop <-chan struct{}) error {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		d, held := v.playout()
		if d <= 0 && held == nil {
			return nil
		}
		var tick <-chan time.Time
		if held == nil {
			t.Reset(d)
			tick = t.C
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-stop:
			return errCleared
		case <-held:
		case <-tick:
		}
	}
}

func (v *Voice) close() {
	v.mu.Lock()
	track := v.track
	v.track = nil
	v.mu.Unlock()
	if track != nil {
		_ = track.Close()
	}
}
