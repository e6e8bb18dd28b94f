package roomcheck

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/examtui/examtui/audio"
)

// micTrack is where the pump writes: the candidate's outgoing track (a *livekit.Voice).
type micTrack interface {
	Write(samples []int16) error
	// Sent is closed once the track has taken everything written so far off its queue.
	Sent() <-chan struct{}
}

// micPump writes the candidate's microphone: each queued line whole, once the track has sent
// what came before it, and silence in between, 20 ms at a time, as a live microphone would (the
// bot's endpointing needs the silence).
//
// The track sends what it is given on its own clock, and under load that clock runs slow (the
// SDK's pacer drops ticks when it is late), so audio written without pause piles up in its
// queue: each turn left the harness later than the one before, by seconds within one run, and
// the latency measured from the time of writing grew with it. Between lines the pump therefore
// writes a silent frame only once the track has sent everything before it (the track sends
// silence itself when its queue is empty), which lets it catch up in every pause, and a line's
// times are those at which its audio really left, not those at which it was written.
type micPump struct {
	v       micTrack
	mu      sync.Mutex
	q       []int16
	started chan time.Time // receives when the first sample of the queued line was written
	done    chan time.Time // receives when the track had sent the last one
	// floor, when set, is the microphone's noise floor (RMS, in sample units) added to all it
	// writes, drawn from noise; nil floor: digital silence between lines.
	floor float64
	noise *rand.Rand
}

// micOption configures a micPump.
type micOption func(*micPump)

// withNoiseFloor gives the microphone a noise floor: white noise at dbfs (RMS) under
// everything the pump writes, the lines and the silence between them. A real microphone is
// never digitally silent (its own noise and the room's are there), and where a browser sends
// Opus DTX in a pause, the receiver's Opus decoder fills the pause with comfort noise (RFC
// 7587, 3.1.3). Exact zeros are what only a synthetic harness sends, and an end-of-turn
// model that listens to the audio (LiveKit Agents' default) hears them differently: it gave
// four of the rehearsal's five espeak-ng answers an end-of-turn probability of 0.26–0.34
// with zeros after them, and three of those four 0.38–0.65 with a -65 dBFS floor.
func withNoiseFloor(dbfs float64) micOption {
	return func(m *micPump) {
		m.floor = 32768 * math.Pow(10, dbfs/20)
		m.noise = rand.New(rand.NewPCG(0x6d6963, 0x666c6f6f72)) // fixed: the same noise every run
	}
}

func newMicPump(v micTrack, opts ...micOption) *micPump {
	m := &micPump{v: v}
	for _, o := range opts {
		o(m)
	}
	return m
}

// addFloor adds the noise floor (if any) to pcm in place, saturating; m.mu must be held.
func (m *micPump) addFloor(pcm []int16) {
	if m.noise == nil {
		return
	}
	for i, s := range pcm {
		v := math.Round(float64(s) + m.noise.NormFloat64()*m.floor)
		pcm[i] = int16(min(max(v, math.MinInt16), math.MaxInt16))
	}
}

func (m *micPump) run(ctx context.Context) {
	tick := time.NewTicker(audio.FrameDuration)
	defer tick.Stop()
	silence := make([]int16, audio.FrameSamples)
	var sent <-chan struct{}    // closed when the track has taken all that was written; nil: it has
	var lineDone chan time.Time // a line is written: told when the track has sent it
	// drained reports whether the track has sent everything written, telling a waiting line.
	drained := func() bool {
		if sent == nil {
			return true
		}
		select {
		case <-sent:
		default:
			return false
		}
		sent = nil
		if lineDone != nil {
			lineDone <- time.Now()
			lineDone = nil
		}
		return true
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-sent:
			drained()
			continue
		case <-tick.C:
		}
		idle := drained()
		now := time.Now()
		m.mu.Lock()
		if len(m.q) == 0 && !idle {
			// Between lines with the track behind: skipping a silent frame lets it catch up.
			m.mu.Unlock()
			continue
		}
		chunk := silence
		if m.noise != nil && len(m.q) == 0 {
			chunk = make([]int16, audio.FrameSamples)
			m.addFloor(chunk)
		}
		if len(m.q) > 0 {
			if m.started != nil {
				m.started <- now
				m.started = nil
			}
			if !idle {
				// A line waits until the track has sent what came before it.
				m.mu.Unlock()
				continue
			}
			// The whole line at once: the track sends it on its own clock, without a gap. Written
			// 20 ms at a time, a writer starved of CPU left the track's queue empty in the middle
			// of the line, the track filled the hole with silence, and the bot's endpointing cut
			// the candidate's words into fragments it could not recognise ("the bot never heard
			// the line").
			chunk = m.q
			m.q = nil
			if m.done != nil {
				lineDone, m.done = m.done, nil
			}
		}
		m.mu.Unlock()
		_ = m.v.Write(chunk)
		if sent == nil {
			sent = m.v.Sent()
		}
	}
}

// say queues pcm and returns when the track has sent its last sample, with the times its first
// sample was written (the track's queue holds at most one silent frame then) and its last left.
func (m *micPump) say(ctx context.Context, pcm []int16) (start, end time.Time, err error) {
	started, done := make(chan time.Time, 1), make(chan time.Time, 1)
	m.mu.Lock()
	n := len(m.q)
	m.q = append(m.q, pcm...)
	m.addFloor(m.q[n:])
	m.started, m.done = started, done
	m.mu.Unlock()
	select {
	case <-ctx.Done():
		return time.Time{}, time.Time{}, ctx.Err()
	case end = <-done:
		return <-started, end, nil
	}
}

// voicedBounds returns where speech starts and ends in pcm (16 kHz): the first and one past
// the last 10 ms window above voicedDBFS, the ground truth a reply's latency is measured from
// (the last voiced sample, not the end of the audio sent).
func voicedBounds(pcm []int16) (first, last time.Duration, ok bool) {
	const win = audio.SampleRate / 100
	lo, hi := -1, -1
	for i := 0; i+win <= len(pcm); i += win {
		if audio.LevelDB(pcm[i:i+win]) > voicedDBFS {
			if lo < 0 {
				lo = i
			}
			hi = i + win
		}
	}
	if lo < 0 {
		return 0, 0, false
	}
	toDur := func(n int) time.Duration { return time.Duration(n) * time.Second / audio.SampleRate }
	return toDur(lo), toDur(hi), true
}
