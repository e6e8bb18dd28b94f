package voicepath

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/runtime"
)

// Timing is where the time of one spoken turn's reply went, on the wall clock: each stage's
// moment, zero when it was not reached (a turn with no spoken reply, a reply cut before its
// audio). WithTimings receives one per reply; a benchmark subtracts SpeechEnd from the others.
type Timing struct {
	Text string // the candidate's turn
	// SpeechEnd is the candidate's last voiced sample (the endpointer's view of it).
	SpeechEnd time.Time
	// Closed is when the end of turn was decided (endpointing); Submitted when the recognised
	// turn reached the controller (after speech recognition).
	Closed, Submitted time.Time
	// Observation is when the examiner's observation (LLM call and decision) was recorded.
	Observation time.Time
	// FirstSentence is when the reply's first spoken line (past the output filters) arrived.
	FirstSentence time.Time
	// FirstFrame is when its first sentence's audio was synthesised; FirstPacket when that
	// audio was handed to the sink (a room's track: its first packet is sent).
	FirstFrame, FirstPacket time.Time
}

// Stage is a step of Timing, in order.
type Stage int

// The stages of a reply, in order; each is measured from the candidate's speech end.
const (
	StageClosed Stage = iota
	StageSubmitted
	StageObservation
	StageFirstSentence
	StageFirstFrame
	StageFirstPacket
	stageCount
)

// Stages lists every stage in order.
func Stages() []Stage {
	s := make([]Stage, stageCount)
	for i := range s {
		s[i] = Stage(i)
	}
	return s
}

var stageNames = [stageCount]string{"turn closed", "turn recognised", "observation", "first filtered sentence",
	"first synthesised frame", "first packet sent"}

var stageKeys = [stageCount]string{"closed", "recognised", "observation", "sentence", "frame", "packet"}

// Key is the stage's short name, for a benchmark's metrics ("closed", "recognised",
// "observation", "sentence", "frame", "packet").
func (s Stage) Key() string {
	if s < 0 || s >= stageCount {
		return "unknown"
	}
	return stageKeys[s]
}

func (s Stage) String() string {
	if s < 0 || s >= stageCount {
		return "unknown"
	}
	return stageNames[s]
}

// At is the moment of stage s.
func (t Timing) At(s Stage) time.Time {
	switch s {
	case StageClosed:
		return t.Closed
	case StageSubmitted:
		return t.Submitted
	case StageObservation:
		return t.Observation
	case StageFirstSentence:
		return t.FirstSentence
	case StageFirstFrame:
		return t.FirstFrame
	case StageFirstPacket:
		return t.FirstPacket
	}
	return time.Time{}
}

// Since is stage s's delay after the speech ended, in milliseconds; ok is false when either
// moment is missing.
func (t Timing) Since(s Stage) (ms float64, ok bool) {
	at := t.At(s)
	if at.IsZero() || t.SpeechEnd.IsZero() {
		return 0, false
	}
	return float64(at.Sub(t.SpeechEnd).Microseconds()) / 1000, true
}

// Timings collects replies' Timing values by stage, for a benchmark's figures: Add is a
// WithTimings callback. It is safe for concurrent use.
type Timings struct {
	mu sync.Mutex
	ms [stageCount][]float64
}

// Add records each stage tm reached, in ms since the speech end (Since).
func (t *Timings) Add(tm Timing) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range Stages() {
		if ms, ok := tm.Since(s); ok {
			t.ms[s] = append(t.ms[s], ms)
		}
	}
}

// Of returns the ms recorded for stage s, in the order added.
func (t *Timings) Of(s Stage) []float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s < 0 || s >= stageCount {
		return nil
	}
	return append([]float64(nil), t.ms[s]...)
}

// WithTimings receives, for each spoken turn that got a spoken reply, where its time went
// (Timing), once the reply's first line has been said. It runs on the speaker's goroutine.
func WithTimings(fn func(Timing)) Option {
	return func(c *config) error { c.timings = fn; return nil }
}

// timer follows the latest submitted turn until its reply's first line is said.
type timer struct {
	mu      sync.Mutex
	pending *Timing // the turn awaiting its reply's first line
}

// turn starts following a turn submitted now.
func (tm *timer) turn(ft audio.FinalTranscript, text string) {
	t := &Timing{Text: text, Submitted: time.Now()}
	if u := ft.Utterance; !u.DecidedAt.IsZero() {
		t.Closed = u.DecidedAt
		t.SpeechEnd = u.DecidedAt.Add(-time.Duration(u.DecidedMs-u.EndMs) * time.Millisecond)
	}
	tm.mu.Lock()
	tm.pending = t
	tm.mu.Unlock()
}

// observed notes the turn's observation (the first one after the turn).
func (tm *timer) observed(at time.Time) {
	tm.mu.Lock()
	if tm.pending != nil && tm.pending.Observation.IsZero() {
		tm.pending.Observation = at
	}
	tm.mu.Unlock()
}

// spoken hands the turn's timing to its reply's first line; nil for a line that is not the
// first of a reply.
func (tm *timer) spoken() *Timing {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	t := tm.pending
	tm.pending = nil
	if t != nil {
		t.FirstSentence = time.Now()
	}
	return t
}

// playStamp is a sink that notes when it was first asked to play since the last reset.
type playStamp struct {
	audio.Sink
	first atomic.Int64 // unix nanoseconds; 0 until Play
}

func (s *playStamp) Play(ctx context.Context, c audio.Clip) (audio.PlayResult, error) {
	s.first.CompareAndSwap(0, time.Now().UnixNano())
	return s.Sink.Play(ctx, c)
}

// PlayStream notes the moment the first run of a streamed clip is handed to the sink
// (audio.StreamSink; a sink that plays only whole clips gets the clip once it is all there).
func (s *playStamp) PlayStream(ctx context.Context, parts <-chan audio.Clip) (audio.PlayResult, error) {
	stop := make(chan struct{})
	defer close(stop)
	stamped := audio.RelayParts(parts, stop, func(audio.Clip) { s.first.CompareAndSwap(0, time.Now().UnixNano()) })
	return audio.PlayStream(ctx, s.Sink, stamped)
}

func (s *playStamp) reset() { s.first.Store(0) }

func (s *playStamp) firstPlay() time.Time {
	if n := s.first.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// observationAt is the moment of an observation event.
func observationAt(ev runtime.Event) time.Time {
	if !ev.Timestamp.IsZero() {
		return ev.Timestamp
	}
	return time.Now()
}
