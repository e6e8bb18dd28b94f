package livekit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/examtui/examtui/audio"
)

// The room's side of the voice path (transport/voicepath): the candidate's decoded microphone
// as an audio.Source and the bot's track as an audio.Sink. Everything between them and the
// controller (turns, the speech queue, interruptions) is the voice path's.

// roomSource re-frames the room's decoded candidate audio (frames of any length) into the
// 20 ms frames the VAD expects, placed by the sender's media time (audio.LiveFramer): a jump in
// the candidate's RTP clock (Opus DTX, lost packets, a mute) is silence, and audio this process
// reads late is still where the candidate said it. When no audio comes at all (the candidate
// muted, left or lost the network) the wall clock counts silence, so a turn ends on time rather
// than when more audio happens to arrive. Samples are numbered from the first one received, so
// the turn timeline is continuous across the candidate's rejoins.
type roomSource struct {
	in     <-chan AudioFrame
	frames chan audio.Frame
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	start  sync.Once
	log    *slog.Logger
}

func newRoomSource(in <-chan AudioFrame, log *slog.Logger) *roomSource {
	return &roomSource{in: in, frames: make(chan audio.Frame, 50), stop: make(chan struct{}), done: make(chan struct{}), log: log}
}

func (s *roomSource) Frames() <-chan audio.Frame { return s.frames }

func (s *roomSource) Start(ctx context.Context) error {
	started := false
	s.start.Do(func() {
		started = true
		go s.run(ctx)
	})
	if !started {
		return audio.ErrAlreadyStarted
	}
	return nil
}

func (s *roomSource) run(ctx context.Context) {
	defer close(s.done)
	defer close(s.frames)
	framer, err := audio.NewLiveFramer(audio.DefaultGapTolerance)
	if err != nil {
		s.log.Error("room audio framer", "err", err)
		return
	}
	tick := time.NewTicker(audio.FrameDuration)
	defer tick.Stop()
	for {
		var out []audio.Frame
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case <-tick.C:
			// Audio already here is placed before the clock counts silence: a receiver that
			// was starved finds both a tick and the late audio waiting. The clock is read now,
			// not when the tick was sent.
			out = s.drain(framer, nil)
			out = append(out, framer.Tick(time.Now())...)
		case f := <-s.in:
			out = s.drain(framer, s.write(framer, nil, f))
		}
		for _, fr := range out {
			select {
			case s.frames <- fr:
			case <-ctx.Done():
				return
			case <-s.stop:
				return
			}
		}
	}
}

// write frames one run of received audio onto out.
func (s *roomSource) write(framer *audio.LiveFramer, out []audio.Frame, f AudioFrame) []audio.Frame {
	at := f.Received
	if at.IsZero() {
		at = time.Now()
	}
	rate := f.SampleRate
	if rate <= 0 {
		rate = audio.SampleRate
	}
	var got []audio.Frame
	var err error
	if f.Stream != 0 {
		got, err = framer.WriteMedia(audio.Run{Samples: f.Samples, Rate: rate, Media: f.Media, Stream: f.Stream, Received: at, Quiet: f.Quiet})
	} else {
		got, err = framer.Write(f.Samples, rate, at)
	}
	if err != nil {
		s.log.Warn("candidate audio dropped", "rate", rate, "err", err)
	}
	return append(out, got...)
}

// drain frames every run already waiting, without blocking.
func (s *roomSource) drain(framer *audio.LiveFramer, out []audio.Frame) []audio.Frame {
	for {
		select {
		case f := <-s.in:
			out = s.write(framer, out, f)
		default:
			return out
		}
	}
}

func (s *roomSource) Close() error {
	s.once.Do(func() { close(s.stop) })
	started := true
	s.start.Do(func() { started = false }) // never started: nothing to wait for
	if started {
		<-s.done
	}
	return nil
}

// trackSink plays clips into the bot's track: Write queues the whole clip and Play waits until
// the track has sent all of it; Stop (barge-in) or any other Clear of the track (an examiner's
// immediate instruction) ends it at once. Pause holds the track, Resume plays on (audio.Pauser).
//
// What was played is counted in the samples the track has really sent (dtxTrack.progress), not
// on the wall clock: on a starved machine the track's pacer falls behind the clock, and what
// it had not sent when a cut cleared its queue was never heard, so it must not count as heard
// (the runtime's heard text on a cut). A pause needs no accounting: a held track sends nothing.
type trackSink struct {
	v *Voice
}

func (s *trackSink) Play(ctx context.Context, c audio.Clip) (audio.PlayResult, error) {
	rate := s.v.SampleRate()
	if c.Rate <= 0 || len(c.Samples) == 0 {
		return audio.PlayResult{}, nil
	}
	total := time.Duration(int64(len(c.Samples)) * int64(time.Second) / int64(c.Rate))
	stop := s.v.clearedCh()
	track, from := s.v.position()
	if err := s.write(c, rate); err != nil {
		return audio.PlayResult{Total: total}, err
	}
	return s.await(ctx, track, from, total, stop)
}

// PlayStream plays a clip as its runs arrive (audio.StreamSink): each is queued on the track
// the moment it comes, so the track sends the voice's first frame while the rest is still
// being synthesised, and the result counts, as Play does, what the track really sent.
func (s *trackSink) PlayStream(ctx context.Context, parts <-chan audio.Clip) (audio.PlayResult, error) {
	rate := s.v.SampleRate()
	stop := s.v.clearedCh()
	track, from := s.v.position()
	var (
		rs    *audio.Resampler
		src   int
		total time.Duration
	)
	// cut: the track was cleared while the clip was still arriving; what it had sent was heard.
	cut := func() audio.PlayResult {
		res := audio.PlayResult{Total: total, Interrupted: true}
		if track != nil {
			sent, _ := track.progress()
			res.Played = min(max(time.Duration((sent-from)*int64(time.Second)/int64(rate)), 0), total)
		}
		return res
	}
	for {
		var c audio.Clip
		var ok bool
		select {
		case c, ok = <-parts:
		case <-stop:
			return cut(), nil
		case <-ctx.Done():
			s.v.Clear()
			return cut(), ctx.Err()
		}
		if !ok {
			break
		}
		if c.Rate <= 0 || len(c.Samples) == 0 {
			continue
		}
		if src == 0 && c.Rate != rate {
			var err error
			if rs, err = audio.NewResampler(c.Rate, rate); err != nil {
				return audio.PlayResult{Total: total}, err
			}
		}
		if src != 0 && c.Rate != src {
			return audio.PlayResult{Total: total}, fmt.Errorf("%w: a clip's runs changed rate (%d Hz, then %d Hz)", audio.ErrInvalidConfig, src, c.Rate)
		}
		src = c.Rate
		total += time.Duration(int64(len(c.Samples)) * int64(time.Second) / int64(c.Rate))
		// A run can be a whole sentence (from the cache, or prepared during a pause).
		if err := s.queue(rs, c); err != nil {
			return audio.PlayResult{Total: total}, err
		}
	}
	if rs != nil {
		if err := s.v.Write(rs.Flush(nil)); err != nil {
			return audio.PlayResult{Total: total}, err
		}
	}
	return s.await(ctx, track, from, total, stop)
}

// await waits until track has sent up to where the voice's queue now ends, counting from
// position from what was sent of a clip of length total: all of it, or what had gone when the
// track was cleared (stop), stopped or ctx ended.
func (s *trackSink) await(ctx context.Context, track *dtxTrack, from int64, total time.Duration, stop <-chan struct{}) (audio.PlayResult, error) {
	rate := s.v.SampleRate()
	after, to := s.v.position()
	if track == nil || after != track {
		// The connection was rebuilt while the clip was written: what the old track had not
		// sent is gone with it, and nothing of it can be counted.
		return audio.PlayResult{Total: total}, nil
	}
	played := func() time.Duration {
		sent, _ := track.progress()
		return min(max(time.Duration((sent-from)*int64(time.Second)/int64(rate)), 0), total)
	}
	for {
		sent, ended := track.progress()
		if sent >= to {
			return audio.PlayResult{Played: total, Total: total}, nil
		}
		if ended { // the track stopped with the clip unsent (it drains even after Close)
			return audio.PlayResult{Played: played(), Total: total, Interrupted: true}, nil
		}
		select {
		case <-track.reached(to):
		case <-stop:
			return audio.PlayResult{Played: played(), Total: total, Interrupted: true}, nil
		case <-ctx.Done():
			s.v.Clear()
			return audio.PlayResult{Played: played(), Total: total, Interrupted: true}, ctx.Err()
		}
	}
}

// firstChunk is how much of a clip is resampled and queued before the rest, so the first
// packet leaves without waiting for the whole sentence to be resampled.
const firstChunk = 40 * time.Millisecond

// write queues the clip on the track at rate.
func (s *trackSink) write(c audio.Clip, rate int) error {
	var rs *audio.Resampler
	if c.Rate != rate {
		var err error
		if rs, err = audio.NewResampler(c.Rate, rate); err != nil {
			return err
		}
	}
	if err := s.queue(rs, c); err != nil || rs == nil {
		return err
	}
	return s.v.Write(rs.Flush(nil))
}

// queue resamples c with rs (nil: c is at the track's rate) and queues it firstChunk at a
// time, so the first packet leaves without waiting for the whole clip to be resampled.
func (s *trackSink) queue(rs *audio.Resampler, c audio.Clip) error {
	step := max(1, int(int64(c.Rate)*int64(firstChunk)/int64(time.Second)))
	for samples := c.Samples; len(samples) > 0; {
		n := min(len(samples), step)
		out := samples[:n]
		if rs != nil {
			out = rs.Process(out, nil)
		}
		if err := s.v.Write(out); err != nil {
			return err
		}
		samples = samples[n:]
	}
	return nil
}

func (s *trackSink) Stop() { s.v.Clear() }

// Pause holds the clip where it is (audio.Pauser); Resume plays on from there.
func (s *trackSink) Pause() { s.v.Pause() }

// Resume plays on a held clip.
func (s *trackSink) Resume() { s.v.Resume() }

// Close leaves the track to the room, which owns it.
func (s *trackSink) Close() error { return nil }
