package audio

import (
	"fmt"
	"time"
)

// EndpointConfig holds LiveKit's endpointing knobs and the padding kept around an utterance.
type EndpointConfig struct {
	// MinEndpointingDelay: silence after the last speech before the turn ends, when nothing
	// suggests the candidate will go on (LiveKit's min_endpointing_delay, default 0.5 s). Pauses
	// inside a sentence shorter than this never split a turn.
	MinEndpointingDelay time.Duration
	// MaxEndpointingDelay: the longest wait, used while the turn looks unfinished (Hold), e.g.
	// the partial transcript ends in "and" or "because" (LiveKit's max_endpointing_delay, 3 s).
	MaxEndpointingDelay time.Duration
	// CompleteEndpointingDelay: the shorter wait used once a turn detector has read the words
	// so far as a complete answer (Release). Zero: no adaptive end of turn.
	CompleteEndpointingDelay time.Duration
	// SureEndpointingDelay: the shortest wait, once the words read as a sure answer (a complete
	// one with high confidence, ReleaseSure). Zero: CompleteEndpointingDelay.
	SureEndpointingDelay time.Duration
	// PreRoll is audio kept before the detected start, so the recogniser hears the onset.
	PreRoll time.Duration
	// PostRoll is audio kept after the last speech (never more than the silence waited).
	PostRoll time.Duration
	// MaxUtterance ends a turn that has gone on this long without a pause.
	MaxUtterance time.Duration
	// VAD tunes the detector underneath.
	VAD VADConfig
}

// DefaultEndpointConfig returns LiveKit's defaults (0.5 s / 3 s) and 200 ms of padding.
func DefaultEndpointConfig() EndpointConfig {
	return EndpointConfig{
		MinEndpointingDelay: 500 * time.Millisecond,
		MaxEndpointingDelay: 3 * time.Second,
		PreRoll:             200 * time.Millisecond,
		PostRoll:            200 * time.Millisecond,
		MaxUtterance:        60 * time.Second,
		VAD:                 DefaultVADConfig(),
	}
}

func (c EndpointConfig) validate() error {
	if c.MinEndpointingDelay < FrameDuration || c.MaxEndpointingDelay < c.MinEndpointingDelay {
		return fmt.Errorf("%w: endpointing delays min %v, max %v (want %v ≤ min ≤ max)",
			ErrInvalidConfig, c.MinEndpointingDelay, c.MaxEndpointingDelay, FrameDuration)
	}
	if c.CompleteEndpointingDelay != 0 && (c.CompleteEndpointingDelay < FrameDuration || c.CompleteEndpointingDelay > c.MinEndpointingDelay) {
		return fmt.Errorf("%w: complete-answer endpointing delay %v (want %v ≤ it ≤ min %v)",
			ErrInvalidConfig, c.CompleteEndpointingDelay, FrameDuration, c.MinEndpointingDelay)
	}
	if c.SureEndpointingDelay != 0 && (c.SureEndpointingDelay < FrameDuration || c.CompleteEndpointingDelay == 0 || c.SureEndpointingDelay > c.CompleteEndpointingDelay) {
		return fmt.Errorf("%w: sure-answer endpointing delay %v (want %v ≤ it ≤ the complete-answer delay %v)",
			ErrInvalidConfig, c.SureEndpointingDelay, FrameDuration, c.CompleteEndpointingDelay)
	}
	if c.PreRoll < 0 || c.PostRoll < 0 || c.MaxUtterance < time.Second {
		return fmt.Errorf("%w: pre-roll %v, post-roll %v, max utterance %v", ErrInvalidConfig, c.PreRoll, c.PostRoll, c.MaxUtterance)
	}
	if c.VAD.Hangover >= c.MinEndpointingDelay {
		// The endpoint is counted from the last speech; a longer hangover would delay it.
		return fmt.Errorf("%w: VAD hangover %v must be shorter than the min endpointing delay %v",
			ErrInvalidConfig, c.VAD.Hangover, c.MinEndpointingDelay)
	}
	return c.VAD.validate()
}

// Utterance is one candidate turn as the endpointer cut it.
type Utterance struct {
	// Samples is 16 kHz mono audio from SamplesStartMs: the speech plus PreRoll before and up
	// to PostRoll after.
	Samples        []int16
	SamplesStartMs int64
	// StartMs and EndMs bound the speech on the source timeline (first voiced sample, one past
	// the last).
	StartMs, EndMs int64
	// DecidedMs is the source time at which the endpoint was decided (EndMs + the delay,
	// rounded up to a frame); DecidedMs-EndMs is the endpointing latency in audio time.
	DecidedMs int64
	// Delay is the endpointing delay that applied (MinEndpointingDelay, or Max when held).
	Delay time.Duration
	// Forced is true when MaxUtterance cut the turn.
	Forced bool
	// DecidedAt is the wall clock when the endpoint was decided, for latency accounting.
	DecidedAt time.Time
}

// Duration is the speech duration (EndMs-StartMs).
func (u Utterance) Duration() time.Duration {
	return time.Duration(u.EndMs-u.StartMs) * time.Millisecond
}

// EndpointResult is what one frame produced.
type EndpointResult struct {
	VAD VADResult
	// TurnStarted: a new candidate turn began at TurnStartMs.
	TurnStarted bool
	TurnStartMs int64
	// Resumed: speech came back inside a turn, during the endpointing wait.
	Resumed bool
	// Paused: the candidate went quiet inside a turn (the VAD's hangover ran out); the
	// endpointer is now waiting. A turn detector may call Hold here.
	Paused bool
	// Utterance is set when the turn ended on this frame.
	Utterance *Utterance
	// Learned is set when the candidate went on after a short pause (inside a turn, or just
	// after a turn a complete answer's wait ended) that raised the wait every complete answer
	// now gets at least (LearnedPause).
	Learned *LearnedPause
}

// Endpointer turns a stream of frames into candidate turns: VAD speech segments separated by
// pauses shorter than the endpointing delay join into one utterance; the turn ends when the
// silence after the last speech reaches the delay. It is not safe for concurrent use.
type Endpointer struct {
	cfg     EndpointConfig
	vad     *VAD
	pre     []Frame // recent frames while idle, for the pre-roll
	preMax  int
	inTurn  bool
	paused  bool
	hold    bool
	unread  bool // hold is HoldUnread's: the pause's words are not read yet
	release bool
	sure    bool  // the release is for a sure answer
	start   int64 // first voiced sample of the turn
	buf     []int16
	bufFrom int64 // source offset of buf[0]
	pauses  pauseLearner
}

// NewEndpointer returns an endpointer; a zero config means DefaultEndpointConfig, and a zero
// VAD config inside it means DefaultVADConfig.
func NewEndpointer(cfg EndpointConfig) (*Endpointer, error) {
	if cfg == (EndpointConfig{}) {
		cfg = DefaultEndpointConfig()
	}
	if cfg.VAD == (VADConfig{}) {
		cfg.VAD = DefaultVADConfig()
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	vad, err := NewVAD(cfg.VAD)
	if err != nil {
		return nil, err
	}
	preFrames := int((cfg.PreRoll+cfg.VAD.MinSpeech)/FrameDuration) + 1
	return &Endpointer{cfg: cfg, vad: vad, preMax: preFrames}, nil
}

// Config returns the configuration in use.
func (e *Endpointer) Config() EndpointConfig { return e.cfg }

// Hold extends the current wait to MaxEndpointingDelay (true) or back to the minimum (false);
// it lasts until speech resumes or the turn ends. A turn detector calls it when the words so
// far look unfinished.
func (e *Endpointer) Hold(on bool) { e.hold, e.unread = on, false }

// HoldUnread is Hold(true) until the pause's words are read: the wait is as long as if they
// trailed, but the words have not held the turn, so a pause the candidate ends before its
// reading still teaches the wait (pauselearn.go). Hold, Release or ReleaseSure replace it.
func (e *Endpointer) HoldUnread() { e.hold, e.unread = true, true }

// Release shortens the current wait to CompleteEndpointingDelay (when set): a turn detector
// read the words so far as a complete answer. It lasts until speech resumes or the turn ends;
// Hold wins over it.
func (e *Endpointer) Release() {
	e.unread = false
	if e.cfg.CompleteEndpointingDelay > 0 {
		e.release = true
	}
}

// ReleaseSure is Release for a sure answer: the wait becomes SureEndpointingDelay (when set).
func (e *Endpointer) ReleaseSure() {
	e.Release()
	e.sure = e.release
}

// LearnedWait is the least wait a complete answer now gets, learnt from the candidate's own
// pauses (zero: none learnt yet; see LearnedPause).
func (e *Endpointer) LearnedWait() time.Duration { return e.pauses.learned }

// InTurn reports whether a turn is open.
func (e *Endpointer) InTurn() bool { return e.inTurn }

// Push feeds one frame.
func (e *Endpointer) Push(f Frame) EndpointResult {
	var vr VADResult
	if f.Missing {
		vr = e.vad.ProcessMissing(f.Offset, len(f.Samples))
	} else {
		vr = e.vad.Process(f.Samples, f.Offset)
	}
	res := EndpointResult{VAD: vr}
	frameEnd := f.Offset + int64(len(f.Samples))
	if !e.inTurn {
		e.pre = append(e.pre, f)
		if len(e.pre) > e.preMax {
			e.pre = e.pre[1:]
		}
		if !vr.Started {
			return res
		}
		e.openTurn(vr.StartOffset)
		res.Learned = e.pauses.turnStarted(e.cfg, vr.StartOffset)
		res.TurnStarted = true
		res.TurnStartMs = samplesToMs(e.start)
		return res
	}
	e.appendFrame(f)
	if vr.Started || (vr.Voiced && vr.Speaking && e.paused) {
		res.Resumed = e.paused
		if e.paused && (!e.hold || e.unread) {
			// The candidate went on after a short pause their words did not hold: how long
			// they pause between phrases is how long a complete answer of theirs must be
			// waited for (pauselearn.go).
			res.Learned = e.pauses.wentOn(e.cfg, resumedAt(vr, f))
		}
		e.paused = false
		e.hold, e.unread = false, false
		e.release, e.sure = false, false
	}
	if vr.Ended {
		e.paused = true
		e.pauses.pausedAt = vr.LastVoicedEnd
		res.Paused = true
	}
	silence := time.Duration(frameEnd-vr.LastVoicedEnd) * time.Second / SampleRate
	delay := e.cfg.MinEndpointingDelay
	switch {
	case e.hold:
		delay = e.cfg.MaxEndpointingDelay
	case e.release && e.sure && e.cfg.SureEndpointingDelay > 0:
		delay = max(e.cfg.SureEndpointingDelay, e.pauses.learned)
	case e.release:
		delay = max(e.cfg.CompleteEndpointingDelay, e.pauses.learned)
	}
	forced := time.Duration(frameEnd-e.start)*time.Second/SampleRate >= e.cfg.MaxUtterance
	// A loud frame the VAD has not yet confirmed as speech (its onset needs MinSpeech) may be
	// the candidate going on: the wait does not run out on it, so a pause shorter than the wait
	// never ends a turn however long the onset takes to confirm. A click only defers the end
	// by the onset's length.
	onset := vr.Voiced && !vr.Speaking
	if (silence >= delay && !onset) || forced {
		res.Utterance = e.closeTurn(vr.LastVoicedEnd, frameEnd, delay, forced)
	}
	return res
}

func (e *Endpointer) openTurn(start int64) {
	e.inTurn = true
	e.paused = false
	e.hold, e.unread = false, false
	e.release, e.sure = false, false
	e.start = start
	from := max(start-msToSamples(e.cfg.PreRoll.Milliseconds()), 0)
	e.buf = e.buf[:0]
	e.bufFrom = -1
	for _, pf := range e.pre {
		end := pf.Offset + int64(len(pf.Samples))
		if end <= from {
			continue
		}
		skip := max(from-pf.Offset, 0)
		if e.bufFrom < 0 {
			e.bufFrom = pf.Offset + skip
		}
		e.appendSamples(pf.Offset+skip, pf.Samples[skip:])
	}
	e.pre = e.pre[:0]
}

func (e *Endpointer) appendFrame(f Frame) { e.appendSamples(f.Offset, f.Samples) }

// appendSamples places samples at their offset, filling dropped frames with silence so the
// utterance stays on the source timeline.
func (e *Endpointer) appendSamples(offset int64, s []int16) {
	if e.bufFrom < 0 {
		e.bufFrom = offset
	}
	if gap := offset - (e.bufFrom + int64(len(e.buf))); gap > 0 {
		e.buf = append(e.buf, make([]int16, gap)...)
	}
	e.buf = append(e.buf, s...)
}

func (e *Endpointer) closeTurn(lastVoicedEnd, frameEnd int64, delay time.Duration, forced bool) *Utterance {
	end := lastVoicedEnd
	if forced {
		end = frameEnd
	}
	keepTo := min(end+msToSamples(e.cfg.PostRoll.Milliseconds()), frameEnd)
	n := max(min(keepTo-e.bufFrom, int64(len(e.buf))), 0)
	u := &Utterance{
		Samples:        append([]int16(nil), e.buf[:n]...),
		SamplesStartMs: samplesToMs(e.bufFrom),
		StartMs:        samplesToMs(e.start),
		EndMs:          samplesToMs(end),
		DecidedMs:      samplesToMs(frameEnd),
		Delay:          delay,
		Forced:         forced,
		DecidedAt:      time.Now(),
	}
	e.pauses.turnEnded(end, frameEnd, e.release && !forced)
	e.inTurn = false
	e.paused = false
	e.hold, e.unread = false, false
	e.release, e.sure = false, false
	e.buf = e.buf[:0]
	e.pre = e.pre[:0]
	if forced {
		e.vad.Reset()
	}
	return u
}

// Flush ends an open turn at the end of a stream (a file ran out mid-turn).
func (e *Endpointer) Flush() *Utterance {
	if !e.inTurn {
		return nil
	}
	end := e.bufFrom + int64(len(e.buf))
	last := e.vad.lastVoicedEnd
	return e.closeTurn(last, end, e.cfg.MinEndpointingDelay, false)
}

// ResetSpeech drops any open turn and the VAD's speech state, keeping the noise floor: used
// when mic frames were ignored while the examiner spoke.
func (e *Endpointer) ResetSpeech() {
	e.pauses.forgetTurn() // speech after the examiner's line is a reply, not a continuation
	e.inTurn = false
	e.paused = false
	e.hold, e.unread = false, false
	e.buf = e.buf[:0]
	e.pre = e.pre[:0]
	e.vad.Reset()
}

// TurnSamples is the open turn's audio so far, from the same first sample as its Utterance
// (nil when no turn is open). It aliases the endpointer's buffer: use it before the next Push.
// A streaming recogniser is fed from it.
func (e *Endpointer) TurnSamples() []int16 {
	if !e.inTurn {
		return nil
	}
	return e.buf
}

// Snapshot returns the open turn so far (for a partial transcript during a pause); ok is
// false when no turn is open.
func (e *Endpointer) Snapshot() (u Utterance, ok bool) {
	if !e.inTurn {
		return Utterance{}, false
	}
	last := e.vad.lastVoicedEnd
	return Utterance{
		Samples:        append([]int16(nil), e.buf...),
		SamplesStartMs: samplesToMs(e.bufFrom),
		StartMs:        samplesToMs(e.start),
		EndMs:          samplesToMs(last),
	}, true
}
