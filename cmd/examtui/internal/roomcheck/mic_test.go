package roomcheck

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
)

// slowTrack stands in for the SDK's outgoing track under load: its pacer takes one 20 ms frame
// every 25 ms (a ticker that dropped one tick in five), and it notes when each line's first and
// last voiced samples really left.
type slowTrack struct {
	mu      sync.Mutex
	q       []int16
	waiters []chan struct{}
	voiced  bool // the last frame taken held speech
	firsts  []time.Time
	lasts   []time.Time
	// every is the pacer's period (default 25 ms); writeLate is how late each Write returns,
	// as a writer starved of CPU would.
	every     time.Duration
	writeLate time.Duration
}

func (s *slowTrack) Write(samples []int16) error {
	time.Sleep(s.writeLate)
	s.mu.Lock()
	s.q = append(s.q, samples...)
	s.mu.Unlock()
	return nil
}

func (s *slowTrack) Sent() <-chan struct{} {
	ch := make(chan struct{})
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.q) == 0 {
		close(ch)
	} else {
		s.waiters = append(s.waiters, ch)
	}
	return ch
}

func (s *slowTrack) queued() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Duration(len(s.q)) * time.Second / audio.SampleRate
}

// sentLine waits (on the bubble's clock) until the track has sent line n and returns when its
// first and last voiced samples left.
func (s *slowTrack) sentLine(t *testing.T, n int) (first, last time.Time) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		s.mu.Lock()
		if len(s.lasts) > n && (n+1 < len(s.lasts) || !s.voiced) {
			first, last = s.firsts[n], s.lasts[n]
			s.mu.Unlock()
			return first, last
		}
		s.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("line %d not sent within a minute", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (s *slowTrack) pace(ctx context.Context) {
	every := s.every
	if every == 0 {
		every = 25 * time.Millisecond
	}
	testutil.Every(ctx, every, s.sendFrame)
}

// sendFrame takes one frame off the queue, noting when voiced runs begin and end.
func (s *slowTrack) sendFrame() {
	s.mu.Lock()
	defer s.mu.Unlock()
	frame := s.q[:min(len(s.q), audio.FrameSamples)]
	s.q = s.q[len(frame):]
	voiced := false
	for _, v := range frame {
		voiced = voiced || v != 0
	}
	now := time.Now()
	if voiced && !s.voiced {
		s.firsts = append(s.firsts, now)
	}
	if voiced {
		if len(s.lasts) < len(s.firsts) {
			s.lasts = append(s.lasts, now)
		}
		s.lasts[len(s.lasts)-1] = now
	}
	s.voiced = voiced
	if len(s.q) == 0 {
		for _, w := range s.waiters {
			close(w)
		}
		s.waiters = nil
	}
}

// TestMicPumpLagDoesNotGrow: a candidate says five 1 s lines, 2 s apart, into a track whose
// pacer runs 20% slow. Each line must begin leaving within two frames of the time the pump
// reports, on every turn (the lag must not build up from turn to turn), and the reported end
// must be when its last sample really left. Before the pump waited for the track, the silence
// written between lines piled up in the queue, 0.4 s more per pause.
func TestMicPumpLagDoesNotGrow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		tr := &slowTrack{}
		go tr.pace(ctx)
		m := newMicPump(tr)
		go m.run(ctx)
		line := make([]int16, audio.SampleRate) // 1 s of speech
		for i := range line {
			line[i] = 3000
		}
		for turn := range 5 {
			time.Sleep(2 * time.Second)
			start, end, err := m.say(ctx, line)
			if err != nil {
				t.Fatal(err)
			}
			first, last := tr.sentLine(t, turn)
			if lag := first.Sub(start); lag < 0 || lag > 2*audio.FrameDuration {
				t.Errorf("turn %d: the line began leaving %v after the pump said it started (want 0..%v)", turn, lag, 2*audio.FrameDuration)
			}
			if !end.Equal(last) {
				t.Errorf("turn %d: end reported at %v, the last sample left at %v (%v apart)", turn, end.Sub(start), last.Sub(start), last.Sub(end))
			}
		}
		time.Sleep(time.Second)
		if q := tr.queued(); q > audio.FrameDuration {
			t.Errorf("after the last line the track still holds %v", q)
		}
		cancel()
		synctest.Wait()
	})
}

// TestMicPumpStarvedWriterLeavesNoGap: the track sends on time (20 ms a frame) but every write
// reaches it 30 ms late, as a harness starved of CPU writes. Each line must still leave as one
// voiced run. Written 20 ms at a time, the track ran dry inside the line and sent silence in
// the holes, and the bot's endpointing cut the candidate's words into fragments it could not
// recognise: on a busy machine the bot never heard the candidate's line.
func TestMicPumpStarvedWriterLeavesNoGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		tr := &slowTrack{every: audio.FrameDuration, writeLate: 30 * time.Millisecond}
		go tr.pace(ctx)
		m := newMicPump(tr)
		go m.run(ctx)
		line := make([]int16, audio.SampleRate) // 1 s of speech
		for i := range line {
			line[i] = 3000
		}
		for turn := range 3 {
			time.Sleep(time.Second)
			if _, _, err := m.say(ctx, line); err != nil {
				t.Fatal(err)
			}
			tr.sentLine(t, turn)
		}
		time.Sleep(time.Second)
		tr.mu.Lock()
		runs := len(tr.firsts)
		tr.mu.Unlock()
		if runs != 3 {
			t.Errorf("3 lines left as %d voiced runs: the track ran dry inside a line", runs)
		}
		cancel()
		time.Sleep(time.Second) // a write in progress returns, and the pump sees the end
		synctest.Wait()
	})
}

// recordTrack takes every write at once and keeps it.
type recordTrack struct {
	mu     sync.Mutex
	writes [][]int16
}

func (r *recordTrack) Write(samples []int16) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, slices.Clone(samples))
	return nil
}

func (r *recordTrack) Sent() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// TestMicPumpNoiseFloor: with a noise floor, nothing the microphone sends is digital silence:
// the silent frames between lines and a line's own silent tail carry the floor at its level,
// and a voiced line keeps its sound (the floor is added, not mixed in place of it). Without
// the option the pump still sends exact zeros between lines, as the other harnesses expect.
func TestMicPumpNoiseFloor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  []micOption
		floor float64 // the level wanted for the silence, dBFS (-100: digital silence)
	}{
		{"digital silence", nil, -100},
		{"-65 dBFS floor", []micOption{withNoiseFloor(-65)}, -65},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				tr := &recordTrack{}
				m := newMicPump(tr, tc.opts...)
				go m.run(ctx)
				time.Sleep(200 * time.Millisecond)
				line := make([]int16, audio.SampleRate/2) // 250 ms of sound, 250 ms of silence
				for i := range audio.SampleRate / 4 {
					line[i] = 3000
				}
				if _, _, err := m.say(ctx, line); err != nil {
					t.Fatal(err)
				}
				time.Sleep(200 * time.Millisecond)
				cancel()
				synctest.Wait()
				tr.mu.Lock()
				defer tr.mu.Unlock()
				var said []int16
				for i, w := range tr.writes {
					if len(w) > audio.FrameSamples {
						said = w
						continue
					}
					if got := audio.LevelDB(w); math.Abs(got-tc.floor) > 1.5 {
						t.Errorf("silent frame %d: level %.1f dBFS, want %.0f", i, got, tc.floor)
					}
				}
				if len(said) != len(line) {
					t.Fatalf("the line was not written whole: %d samples, want %d", len(said), len(line))
				}
				if got := audio.LevelDB(said[len(line)/2:]); math.Abs(got-tc.floor) > 1.5 {
					t.Errorf("the line's silent tail: level %.1f dBFS, want %.0f", got, tc.floor)
				}
				if got, want := audio.LevelDB(said[:len(line)/2]), audio.LevelDB(line[:len(line)/2]); math.Abs(got-want) > 0.1 {
					t.Errorf("the line's sound: level %.2f dBFS, want %.2f", got, want)
				}
				if line[len(line)-1] != 0 {
					t.Error("the caller's samples were changed")
				}
			})
		})
	}
}
