package roomtest

import (
	"context"
	"sync"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/audio/livekit"
)

// micPump writes the candidate's microphone in real time, 20 ms at a time: queued speech, and
// silence in between, as a live microphone would (the bot's endpointing needs the silence).
type micPump struct {
	v       *livekit.Voice
	mu      sync.Mutex
	q       []int16
	started chan time.Time // receives when the first sample of the queued line was written
	done    chan time.Time // receives when the last one was
}

func newMicPump(v *livekit.Voice) *micPump { return &micPump{v: v} }

func (m *micPump) run(ctx context.Context) {
	tick := time.NewTicker(audio.FrameDuration)
	defer tick.Stop()
	silence := make([]int16, audio.FrameSamples)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now := time.Now()
		m.mu.Lock()
		chunk := silence
		if len(m.q) > 0 {
			if m.started != nil {
				m.started <- now
				m.started = nil
			}
			n := min(len(m.q), audio.FrameSamples)
			chunk = append([]int16(nil), m.q[:n]...)
			m.q = m.q[n:]
			if len(m.q) == 0 && m.done != nil {
				m.done <- now.Add(time.Duration(n) * time.Second / audio.SampleRate)
				m.done = nil
			}
		}
		m.mu.Unlock()
		_ = m.v.Write(chunk)
	}
}

// say queues pcm and returns when its last sample has been written, with the times its first
// sample began and its last ended.
func (m *micPump) say(ctx context.Context, pcm []int16) (start, end time.Time, err error) {
	started, done := make(chan time.Time, 1), make(chan time.Time, 1)
	m.mu.Lock()
	m.q = append(m.q, pcm...)
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
// the last 10 ms window above -45 dBFS, the ground truth a reply's latency is measured from
// (the last voiced sample, not the end of the audio sent).
func voicedBounds(pcm []int16) (first, last time.Duration, ok bool) {
	const win = audio.SampleRate / 100
	lo, hi := -1, -1
	for i := 0; i+win <= len(pcm); i += win {
		if audio.LevelDB(pcm[i:i+win]) > -45 {
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
