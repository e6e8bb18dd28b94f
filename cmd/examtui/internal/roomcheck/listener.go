package roomcheck

import (
	"context"
	"sync"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/transport/livekit"
)

const (
	// voicedDBFS is the level above which audio is voiced, on both sides of a reply: the
	// candidate's last voiced sample (voicedBounds) and the examiner's first one. It separates
	// speech from the silence the track carries between lines (decoded Opus silence is near
	// zero) and counts the quiet onset of a line ("th" of "Thank you" is −41 dBFS for 80 ms
	// before its vowel), which a listener hears.
	voicedDBFS = -45
	// runGap splits the examiner's voiced frames into speaking runs: a quiet stretch this long
	// is a stop on the timeline (espeak-ng's pauses between words are shorter).
	runGap = 250 * time.Millisecond
	// frameLen is the length counted for one voiced frame at the end of a run.
	frameLen = 20 * time.Millisecond
)

// listener is the candidate's ear: it consumes the bot's decoded audio, records it, and
// notes when it was voiced.
type listener struct {
	mu       sync.Mutex
	recorder *audio.SessionRecorder
	frames   int
	voiced   []time.Time // receive times of voiced frames, in order
	// heard keeps the received audio since the current step began (forget), so each reply's
	// audio can be written as its own clip.
	heard   []heardFrame
	rate    int
	changed chan struct{}
	// The bot's word on its own lines: the highest spoken seq the candidate received and the
	// latest line_end (ends > 0 once the bot has sent one: it speaks that protocol).
	spokenSeq int64
	lastEnd   livekit.LineEnd
	ends      int
	// botEnds: the bot is examtui's, which says when each line ends (line_end); false for
	// another agent's voice until it sends one.
	botEnds bool
}

// lineEndWait is how long a reply may go quiet, when the bot says when its lines end but has
// not said so, before the harness takes it as over all the same (a line_end lost with a
// connection): far longer than a starved track's gap inside a line.
const lineEndWait = 5 * time.Second

// heardFrame is one received frame and when it arrived.
type heardFrame struct {
	at      time.Time
	samples []int16
}

func newListener() *listener { return &listener{changed: make(chan struct{})} }

func (l *listener) setRecorder(r *audio.SessionRecorder) {
	l.mu.Lock()
	l.recorder = r
	l.mu.Unlock()
}

func (l *listener) run(ctx context.Context, frames <-chan livekit.AudioFrame) {
	receive(ctx, frames, func(f livekit.AudioFrame) {
		l.mu.Lock()
		if l.rate == 0 && f.SampleRate > 0 {
			l.rate = f.SampleRate
		}
		l.mu.Unlock()
		l.add(f.Samples, f.Received)
	})
}

// add notes one received frame.
func (l *listener) add(samples []int16, at time.Time) {
	l.mu.Lock()
	l.frames++
	if audio.LevelDB(samples) > voicedDBFS {
		l.voiced = append(l.voiced, at)
	}
	l.heard = append(l.heard, heardFrame{at: at, samples: samples})
	rec := l.recorder
	l.changedLocked()
	l.mu.Unlock()
	if rec != nil {
		_ = rec.Write(audio.TrackExaminer, samples)
	}
}

// spokenLine notes a spoken event the candidate received.
func (l *listener) spokenLine(seq int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.spokenSeq = max(l.spokenSeq, seq)
	l.changedLocked()
}

// lineEnd notes the bot's line_end message.
func (l *listener) lineEnd(le livekit.LineEnd) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lastEnd = le
	l.ends++
	l.changedLocked()
}

func (l *listener) changedLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// finishedLocked reports whether the bot has said it finished speaking (over, with nothing
// after it, every spoken line the candidate has received) after a reply whose first voiced
// frame was first, and when it said so. A line_end received before first belongs to an earlier
// reply unless the reply's own spoken lines are already covered by it. The caller holds l.mu.
func (l *listener) finishedLocked(first time.Time, ownLine bool) (bool, time.Time) {
	e := l.lastEnd
	if l.ends == 0 || !e.Idle || e.Through < l.spokenSeq {
		return false, time.Time{}
	}
	return ownLine || e.Received.After(first), e.Received
}

// forget drops the audio received before t: a step's clips need only its own audio, and a
// long run must not hold all of it.
func (l *listener) forget(t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := 0
	for i < len(l.heard) && l.heard[i].at.Before(t) {
		i++
	}
	l.heard = append([]heardFrame(nil), l.heard[i:]...)
}

// slice returns the audio received in [from, to] and its sample rate.
func (l *listener) slice(from, to time.Time) ([]int16, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int16
	for _, f := range l.heard {
		if !f.at.Before(from) && !f.at.After(to) {
			out = append(out, f.samples...)
		}
	}
	rate := l.rate
	if rate == 0 {
		rate = audio.SampleRate
	}
	return out, rate
}

// silentAfter waits until the examiner has been quiet for quiet (or until deadline) and
// returns the end of its last voiced frame after since (zero: none).
func (l *listener) silentAfter(ctx context.Context, since, deadline time.Time, quiet time.Duration) (time.Time, error) {
	for {
		now := time.Now()
		l.mu.Lock()
		var last time.Time
		if n := len(l.voiced); n > 0 && l.voiced[n-1].After(since) {
			last = l.voiced[n-1].Add(frameLen)
		}
		silent := len(l.voiced) == 0 || now.Sub(l.voiced[len(l.voiced)-1]) >= quiet
		ch := l.changed
		l.mu.Unlock()
		if silent || now.After(deadline) {
			return last, nil
		}
		if err := waitChange(ctx, ch, min(runGap, time.Until(deadline))); err != nil {
			return last, err
		}
	}
}

// waitTrack waits for the first frame of the bot's track.
func (l *listener) waitTrack(ctx context.Context) error {
	for {
		l.mu.Lock()
		n, ch := l.frames, l.changed
		l.mu.Unlock()
		if n > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

// intoLine waits until the examiner has been heard speaking for d (voiced audio received after
// since, counted in frames, not on the clock: a starved track sends late) and returns true, or
// returns false at deadline without that much. It wakes on each frame received.
func (l *listener) intoLine(ctx context.Context, since, deadline time.Time, d time.Duration) (bool, error) {
	for {
		l.mu.Lock()
		n := 0
		for i := len(l.voiced) - 1; i >= 0 && l.voiced[i].After(since); i-- {
			n++
		}
		ch := l.changed
		l.mu.Unlock()
		if time.Duration(n)*frameLen >= d {
			return true, nil
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return false, nil
		}
		if err := waitChange(ctx, ch, wait); err != nil {
			return false, err
		}
	}
}

// reply is one examiner reply as heard.
type reply struct {
	first, last time.Time     // first and last voiced frame
	early       time.Duration // > 0: the reply's run began this long before since
	capped      bool
}

func (r reply) latency(since time.Time) time.Duration {
	if r.early > 0 {
		return 0
	}
	return r.first.Sub(since)
}

func (r reply) duration() time.Duration { return r.last.Sub(r.first) + frameLen }

// waitOpts bound one reply measurement.
type waitOpts struct {
	firstTimeout, tail, maxReply time.Duration
	onlyFirst                    bool                            // return at the first audio (an interrupt step follows)
	alive                        func(grace time.Duration) error // non-nil: the connection has been down longer than grace
	onFirst                      func(first time.Time)           // told of the first audio as soon as it is heard
	// ownLine reports whether a spoken line of this reply has been received (its line_end
	// then cannot be an earlier reply's); nil: never.
	ownLine func() bool
}

// awaitReply waits for the first voiced audio after since (at most firstTimeout), then for the
// reply to end (tail of silence) or reach the cap. A reply whose speaking run began before
// since (the examiner started before the candidate finished) is returned with early set.
func (l *listener) awaitReply(ctx context.Context, since time.Time, o waitOpts) (reply, error) {
	var r reply
	deadline := time.Now().Add(o.firstTimeout)
	for {
		l.mu.Lock()
		idx := -1
		for i, at := range l.voiced {
			if at.After(since) {
				idx = i
				break
			}
		}
		if idx >= 0 {
			r.first = l.voiced[idx]
			if start := l.runStart(idx); start.Before(since) {
				r.first, r.early = start, since.Sub(start)
			}
		}
		ch := l.changed
		l.mu.Unlock()
		if idx >= 0 {
			break
		}
		if o.alive != nil {
			if err := o.alive(transportGrace); err != nil {
				return r, err
			}
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			// At the deadline an outage is the likely reason: it is the timeout's cause.
			var cause error
			if o.alive != nil {
				cause = o.alive(0)
			}
			return r, &FirstChunkTimeoutError{Timeout: o.firstTimeout, Cause: cause}
		}
		if err := waitChange(ctx, ch, min(wait, time.Second)); err != nil {
			return r, err
		}
	}
	if o.onFirst != nil {
		o.onFirst(r.first)
	}
	if o.onlyFirst {
		r.last = r.first
		return r, nil
	}
	for {
		own := o.ownLine != nil && o.ownLine()
		l.mu.Lock()
		r.last = l.voiced[len(l.voiced)-1]
		signals := l.botEnds || l.ends > 0
		done, saidAt := l.finishedLocked(r.first, own)
		ch := l.changed
		l.mu.Unlock()
		now := time.Now()
		if now.Sub(r.first) >= o.maxReply {
			r.capped = true
			return r, nil
		}
		// The end of the reply: after the bot's word that it finished (when it sends line_end)
		// and a tail of silence after that word and the last voiced frame, since what the track
		// sent last is still on its way; without the bot's word, the tail of silence alone. A
		// starved track's gap inside a line is longer than any tail, and only the bot knows the
		// line goes on.
		quietFrom, tail := r.last, o.tail
		switch {
		case !signals:
		case !done:
			tail = max(tail, lineEndWait)
		case saidAt.After(quietFrom):
			quietFrom = saidAt
		}
		if now.Sub(quietFrom) >= tail {
			return r, nil
		}
		wait := min(tail-now.Sub(quietFrom), o.maxReply-now.Sub(r.first))
		if err := waitChange(ctx, ch, max(wait, time.Millisecond)); err != nil {
			return r, err
		}
	}
}

// runStart walks back from voiced[idx] to the first frame of its speaking run. The caller
// holds l.mu.
func (l *listener) runStart(idx int) time.Time {
	for idx > 0 && l.voiced[idx].Sub(l.voiced[idx-1]) < runGap {
		idx--
	}
	return l.voiced[idx]
}

// run is one stretch of examiner speech.
type speechRun struct{ start, end time.Time }

// runs returns the examiner's speaking runs that overlap [from, to].
func (l *listener) runs(from, to time.Time) []speechRun {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []speechRun
	for i, at := range l.voiced {
		if i == 0 || at.Sub(l.voiced[i-1]) >= runGap {
			out = append(out, speechRun{start: at})
		}
		out[len(out)-1].end = at.Add(frameLen)
	}
	kept := out[:0]
	for _, r := range out {
		if r.end.After(from) && !r.start.After(to) {
			kept = append(kept, r)
		}
	}
	return kept
}

func waitChange(ctx context.Context, ch <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
	case <-t.C:
	}
	return nil
}
