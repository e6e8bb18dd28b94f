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
// network packets) into the 20 ms, 16 kHz frames the VAD expects, on a wall-clock timeline.
//
// The endpointer counts frames, not time. A network sender can simply stop: the candidate
// mutes, leaves or loses the network, a file being published ends, or Opus DTX (on by default
// in browser clients) sends one packet every 400 ms during silence. Counting only what arrives,
// the turn would never close. The framer therefore turns time without audio into silent frames
// marked Missing, once it is more than the gap tolerance late, so missing audio counts as
// silence and a turn ends on the clock.
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
}

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
	if rate <= 0 {
		return nil, fmt.Errorf("%w: audio at %d Hz", ErrInvalidConfig, rate)
	}
	if rate != SampleRate {
		if l.res == nil || l.resRate != rate {
			r, err := NewResampler(rate, SampleRate)
			if err != nil {
				return nil, err
			}
			l.res, l.resRate = r, rate
		}
		samples = l.res.Process(samples, nil)
		if len(samples) == 0 {
			return nil, nil // the resampler is still filling its filter
		}
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
	l.pending = append(l.pending, samples...)
	for len(l.pending) >= FrameSamples {
		out = append(out, Frame{Samples: append([]int16(nil), l.pending[:FrameSamples]...), Offset: l.offset, Captured: now})
		l.pending = l.pending[FrameSamples:]
		l.offset += FrameSamples
	}
	if len(l.pending) == 0 {
		l.pending = nil // let the backing array go
	}
	return out, nil
}

// Tick returns the silent frames owed for time without audio, up to now less the tolerance.
// Call it every frame or so; nothing is returned before the first audio arrived.
func (l *LiveFramer) Tick(now time.Time) []Frame {
	if !l.started {
		return nil
	}
	return l.fill(now.Add(-l.tolerance), now)
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
