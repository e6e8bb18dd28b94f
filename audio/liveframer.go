package audio

import (
	"fmt"
	"time"
)

// DefaultGapTolerance is how late live audio may be before the missing time counts as silence:
// longer than ordinary network jitter (a few 20 ms packets), short enough to add little to
// the end of a turn when the sender stops.
const DefaultGapTolerance = 80 * time.Millisecond

// LiveFramer re-frames live audio that arrives in runs of any length and rate (decoded
// network packets) into the 20 ms, 16 kHz frames the VAD expects.
//
// The endpointer counts frames, not time. A network sender can simply stop: the candidate
// mutes, leaves or loses the network, a file being published ends, or Opus DTX (on by default
// in browser clients) sends one packet every 400 ms during silence. Counting only what arrives,
// the turn would never close. The framer therefore turns time without audio into silent frames
// marked Missing, so missing audio counts as silence and a turn ends on time.
//
// Audio that carries its sender's media time (WriteMedia: an RTP timestamp) is placed by that
// time: a jump in the sender's clock (DTX, lost packets, a mute) is silence at once, and audio
// that arrives late but whole (this process starved of CPU, the network stalled) is placed
// where the sender put it, not where the receiver happened to read it. Only when no audio comes
// at all does the wall clock count silence (Tick), once the audio is more than the gap
// tolerance overdue (VoicedGapTolerance when it ended mid-sound, QuietGapTolerance when the
// sender said that silence follows: Opus DTX); a receiver whose own ticks
// come late was stalled and does not hold that
// against the sender, and audio that turns up after the clock gave up on it raises the
// tolerance for a while. Audio without a media time (Write) is placed on the wall clock by
// when it arrived.
//
// Audio at another rate is converted by one stateful resampler per stream, so chunk
// boundaries leave no clicks. The clock is passed in (now), which keeps it testable. It is not
// safe for concurrent use.
type LiveFramer struct {
	tolerance time.Duration
	res       *Resampler
	resRate   int
	pending   []int16
	offset    int64     // source offset of the next frame
	covered   time.Time // wall time up to which audio (real or missing) is accounted for
	started   bool
	inGap     bool // missing frames were emitted since the last audio

	// Placement on the sender's media clock (WriteMedia); positions are 16 kHz samples on the
	// framer's timeline (offset + len(pending)).
	media    bool          // audio with media times has arrived: Tick counts from heardAt
	stream   uint64        // the sender clock the current base belongs to
	base     int64         // timeline position minus the sender's media position
	heardAt  time.Time     // when the latest audio arrived
	heardEnd int64         // the timeline position that audio ended at
	late     time.Duration // tolerance learned from audio that came after the clock gave up on it
	voiced   bool          // the latest audio ended in sound, not silence
	quiet    bool          // the latest audio said silence follows (Run.Quiet)
	lastTick time.Time
}

// A Run is received audio with its place on the sender's media clock.
type Run struct {
	Samples []int16
	Rate    int
	// Media is where the first sample is on the sender's clock (an RTP timestamp, unwrapped,
	// from the stream's first packet).
	Media time.Duration
	// Stream names the sender's clock: Media is compared only within one stream. A new
	// stream (the candidate rejoined with a new track) continues from where the timeline is.
	Stream uint64
	// Received is when the run arrived.
	Received time.Time
	// Quiet: the sender said that silence follows and that it sends nothing until it has
	// sound again (an Opus DTX frame). The time after it is then counted as silence as soon as
	// it is QuietGapTolerance overdue, not the gap tolerance.
	Quiet bool
}

// mediaJump is the least jump in the sender's clock that is counted as silence; smaller
// differences (rounding, a resampler's delay) close up.
const mediaJump = 10 * time.Millisecond

// VoicedGapTolerance is how late audio may be, when the latest audio ended in sound, before
// the missing time counts as silence. A sender's packets stop in silence (Opus DTX begins
// only after some quiet), and a sender cut off mid-sound is rare; audio that stops mid-sound
// is far more often audio still on its way through a busy receiver.
const VoicedGapTolerance = 300 * time.Millisecond

// QuietGapTolerance is how late audio may be, after a run that said silence follows (Run.Quiet),
// before the missing time counts as silence: the sender said it would send nothing until it
// has sound again, so only the jitter between that run and a resumed word's first packet is
// waited for (the network's own delay is already behind the run: the wait counts from when it
// arrived). Sound that comes later than that is still kept whole (WriteMedia), and the wait
// grows by as much, as for any late audio.
const QuietGapTolerance = FrameDuration

// voicedLevel is the level (dBFS) above which the end of a run counts as sound.
const voicedLevel = -45

// lateMargin is added to what late audio teaches, and the lesson fades by 1/lateDecay of the
// audio that then arrives in time (a second of learned lateness is gone after 20 s of audio).
const (
	lateMargin = 2 * FrameDuration
	lateDecay  = 20
)

// maxLate caps the tolerance learned from late audio, so a turn still ends within about a
// second when a sender that was late stops for good.
const maxLate = time.Second

// NewLiveFramer returns a framer; tolerance is how late audio may be before the gap counts as
// silence (DefaultGapTolerance when zero).
func NewLiveFramer(tolerance time.Duration) (*LiveFramer, error) {
	if tolerance == 0 {
		tolerance = DefaultGapTolerance
	}
	if tolerance < FrameDuration || tolerance > 5*time.Second {
		return nil, fmt.Errorf("%w: gap tolerance %v (want %v..5s)", ErrInvalidConfig, tolerance, FrameDuration)
	}
	return &LiveFramer{tolerance: tolerance}, nil
}

// Write adds samples at rate that were received at now and returns the frames completed,
// preceded by silent frames for any gap before them.
func (l *LiveFramer) Write(samples []int16, rate int, now time.Time) ([]Frame, error) {
	if len(samples) == 0 {
		return nil, nil
	}
	samples, err := l.resample(samples, rate)
	if err != nil || len(samples) == 0 {
		return nil, err // or the resampler is still filling its filter
	}
	d := samplesDuration(len(samples))
	began := now.Add(-d) // the run was complete at now, so it began d earlier
	var out []Frame
	if !l.started {
		l.started = true
		l.covered = began
	} else if gap := began.Sub(l.covered); gap > l.tolerance || (l.inGap && gap > 0) {
		// A gap, or the rest of one the clock has already been counting as silence.
		out = l.fill(began, now)
	}
	l.inGap = false
	if l.covered.Before(began) {
		// Late by less than the tolerance: jitter, not a gap; the timeline closes up.
		l.covered = began
	}
	l.covered = l.covered.Add(d)
	return l.emit(out, samples, now), nil
}

// resample converts samples at rate to SampleRate with the stream's resampler.
func (l *LiveFramer) resample(samples []int16, rate int) ([]int16, error) {
	if rate <= 0 {
		return nil, fmt.Errorf("%w: audio at %d Hz", ErrInvalidConfig, rate)
	}
	if rate == SampleRate {
		return samples, nil
	}
	if l.res == nil || l.resRate != rate {
		r, err := NewResampler(rate, SampleRate)
		if err != nil {
			return nil, err
		}
		l.res, l.resRate = r, rate
	}
	return l.res.Process(samples, nil), nil
}

// emit appends real samples to the pending ones and returns out with the frames completed.
func (l *LiveFramer) emit(out []Frame, samples []int16, now time.Time) []Frame {
	l.pending = append(l.pending, samples...)
	for len(l.pending) >= FrameSamples {
		out = append(out, Frame{Samples: append([]int16(nil), l.pending[:FrameSamples]...), Offset: l.offset, Captured: now})
		l.pending = l.pending[FrameSamples:]
		l.offset += FrameSamples
	}
	if len(l.pending) == 0 {
		l.pending = nil // let the backing array go
	}
	return out
}

// pos is the timeline position of the next sample: every frame emitted and the pending ones.
func (l *LiveFramer) pos() int64 { return l.offset + int64(len(l.pending)) }

// WriteMedia adds a run of received audio, placed by its sender's media time, and returns the
// frames completed: preceded by silence when the sender's clock jumped since the last run (DTX,
// lost packets, a mute). Audio for time the clock already counted as missing (it came later
// than the tolerance) is kept whole after it, and the tolerance grows by how late it was.
func (l *LiveFramer) WriteMedia(r Run) ([]Frame, error) {
	if len(r.Samples) == 0 {
		return nil, nil
	}
	samples, err := l.resample(r.Samples, r.Rate)
	if err != nil || len(samples) == 0 {
		return nil, err
	}
	at := durationSamples(r.Media)
	if !l.media || r.Stream != l.stream {
		// The first audio, or a new sender clock: it follows on from the timeline as it
		// stands (the time in between, if any, was counted by Tick).
		l.media, l.stream, l.base = true, r.Stream, l.pos()-at
		l.started, l.inGap = true, false
	}
	var out []Frame
	switch gap := at + l.base - l.pos(); {
	case gap >= durationSamples(mediaJump):
		out = l.silence(gap, r.Received)
	case gap <= -durationSamples(mediaJump):
		// The clock counted this time as missing, but the sender did send it: the receiver
		// (or the network) was slower than the tolerance. Keep the words; wait longer next time.
		l.late = min(l.late+samplesDuration(int(-gap))+lateMargin, maxLate)
		l.base -= gap
	default:
		l.base -= gap // rounding: close up
		l.late -= min(l.late, samplesDuration(len(samples))/lateDecay)
	}
	out = l.emit(out, samples, r.Received)
	l.heardAt, l.heardEnd = r.Received, l.pos()
	l.voiced = LevelDB(samples[max(0, len(samples)-FrameSamples/2):]) > voicedLevel
	l.quiet = r.Quiet && !l.voiced
	return out, nil
}

// silence puts n samples of silence on the timeline: the pending partial frame is completed,
// whole frames are Missing, and the rest starts the next frame.
func (l *LiveFramer) silence(n int64, now time.Time) []Frame {
	var out []Frame
	if len(l.pending) > 0 {
		k := min(n, int64(FrameSamples-len(l.pending)))
		out = l.emit(out, make([]int16, k), now)
		n -= k
	}
	for ; n >= FrameSamples; n -= FrameSamples {
		out = append(out, Frame{Samples: make([]int16, FrameSamples), Offset: l.offset, Captured: now, Missing: true})
		l.offset += FrameSamples
	}
	if n > 0 {
		l.pending = make([]int16, n)
	}
	return out
}

// Tick returns the silent frames owed for time without audio, up to now less the tolerance.
// Call it every frame or so; nothing is returned before the first audio arrived.
//
// For audio placed by media time the silence owed runs from when the latest audio arrived. A
// tick that comes much later than the one before means this process was starved: audio sent
// meanwhile may still be on its way through it, so the stall is added to the wait.
func (l *LiveFramer) Tick(now time.Time) []Frame {
	if !l.started {
		return nil
	}
	if !l.media {
		return l.fill(now.Add(-l.tolerance), now)
	}
	if !l.lastTick.IsZero() {
		if stall := now.Sub(l.lastTick) - FrameDuration; stall > l.tolerance/2 {
			l.heardAt = l.heardAt.Add(stall)
		}
	}
	l.lastTick = now
	wait := l.tolerance
	switch {
	case l.voiced:
		wait = max(wait, VoicedGapTolerance)
	case l.quiet:
		wait = min(wait, QuietGapTolerance)
	}
	owed := l.heardEnd + durationSamples(now.Sub(l.heardAt)-wait-l.late)
	var out []Frame
	if len(l.pending) > 0 && l.offset+FrameSamples <= owed {
		out = l.emit(out, make([]int16, FrameSamples-len(l.pending)), now) // its sender stopped
	}
	if len(l.pending) > 0 {
		return out
	}
	for l.offset+FrameSamples <= owed {
		out = append(out, Frame{Samples: make([]int16, FrameSamples), Offset: l.offset, Captured: now, Missing: true})
		l.offset += FrameSamples
	}
	return out
}

// fill emits Missing frames until the timeline reaches upTo. A partial frame of real audio
// still pending is completed with silence first: its sender has stopped.
func (l *LiveFramer) fill(upTo, now time.Time) []Frame {
	var out []Frame
	if len(l.pending) > 0 && !l.covered.Add(samplesDuration(FrameSamples-len(l.pending))).After(upTo) {
		s := make([]int16, FrameSamples)
		copy(s, l.pending)
		l.covered = l.covered.Add(samplesDuration(FrameSamples - len(l.pending)))
		l.pending = nil
		out = append(out, Frame{Samples: s, Offset: l.offset, Captured: now})
		l.offset += FrameSamples
	}
	if len(l.pending) > 0 {
		return out
	}
	for !l.covered.Add(FrameDuration).After(upTo) {
		out = append(out, Frame{Samples: make([]int16, FrameSamples), Offset: l.offset, Captured: now, Missing: true})
		l.inGap = true
		l.offset += FrameSamples
		l.covered = l.covered.Add(FrameDuration)
	}
	return out
}

func samplesDuration(n int) time.Duration {
	return time.Duration(n) * time.Second / SampleRate
}

// durationSamples is d in samples at SampleRate, rounded to the nearest.
func durationSamples(d time.Duration) int64 {
	return (int64(d)*SampleRate + int64(time.Second)/2) / int64(time.Second)
}
