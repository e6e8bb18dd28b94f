package audio

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/examtui/examtui/internal/testutil"
)

// rampSynth makes each sentence one second of distinct, non-zero samples, at once, so a test can
// follow every sample of it on its way out.
type rampSynth struct{}

func (rampSynth) Synthesize(context.Context, string, SpeakOptions) (Clip, error) {
	return Clip{Samples: ramp(SampleRate), Rate: SampleRate}, nil
}

// ramp is n samples counting 1, 2, … 4000, 1, 2, … (never 0, so silence is told apart).
func ramp(n int) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(1 + i%4000)
	}
	return s
}

// tap records what the player's callback hands the device: every sample, in order, and how
// many buffers it filled while held.
type tap struct {
	out      []int16
	heldBufs int
}

// tapped installs a tap on p's callback.
func tapped(p *Player) *tap {
	tp := &tap{}
	p.mu.Lock()
	p.tap = func(out []int16) {
		tp.out = append(tp.out, out...)
		if p.held {
			tp.heldBufs++
		}
	}
	p.mu.Unlock()
	return tp
}

// read is f's answer with the player's lock held (the tap and the clip's position are the
// callback's).
func read[T any](p *Player, f func() T) T {
	p.mu.Lock()
	defer p.mu.Unlock()
	return f()
}

// nonZero is s without its zeros (the silence between and inside clips).
func nonZero(s []int16) []int16 {
	return slices.DeleteFunc(slices.Clone(s), func(x int16) bool { return x == 0 })
}

// examinerTrack closes v and its recorder and reads back the examiner's track.
func examinerTrack(t *testing.T, v *Voice, rec *SessionRecorder) Clip {
	t.Helper()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	w, err := ReadWAVFile(rec.Path(TrackExaminer))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestPlayerPauseResumesFromTheHeldSample plays a line on the null device through a Voice with a
// recorder, and pauses it a third of the way in: the callback hands out silence from its next
// buffer, the clip's position stays where it was, and Resume plays on from that sample. The
// device gets every sample of the clip once, in order, with the silence of the hold between;
// the line is heard whole; and the session's examiner.wav holds the clip whole, with the hold
// as silence where it was (not the clip shifted earlier by it).
func TestPlayerPauseResumesFromTheHeldSample(t *testing.T) {
	p := nullPlayer(t)
	tp := tapped(p)
	rec, err := NewSessionRecorder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVoice(nil, nil, rampSynth{}, p, WithRecorder(rec))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	done := make(chan SpeakResult, 1)
	go func() {
		r, _ := v.Speak(context.Background(), "One.", SpeakOptions{})
		done <- r
	}()
	third := SampleRate / 3
	testutil.Eventually(t, 10*time.Second, func() bool { return read(p, func() int { return p.pos }) >= third }, "a third of the clip to be played")
	from := rec.Now()
	if !v.PauseSpeaking() {
		t.Fatal("the player was not paused")
	}
	// The hold has taken: the callback fills its buffers with silence, and the clip stays where
	// it was.
	testutil.Eventually(t, 10*time.Second, func() bool { return read(p, func() int { return tp.heldBufs }) >= 10 }, "the callback to play silence while held")
	at := read(p, func() int { return p.pos })
	// Held past the time the rest of the clip (two thirds of a second) would have taken: the
	// line is still being said.
	testutil.Eventually(t, 10*time.Second, func() bool { return rec.Now()-from >= SampleRate*8/10 }, "the hold to outlast the clip's rest")
	if still := read(p, func() int { return p.pos }); still != at {
		t.Fatalf("the clip moved from sample %d to %d while held", at, still)
	}
	select {
	case r := <-done:
		t.Fatalf("the line ended while held: %+v", r)
	default:
	}
	v.ResumeSpeaking()
	to := rec.Now()
	r := testutil.Recv(t, done, 10*time.Second, "the line to end")
	if r.Interrupted || r.Played != r.Total || r.Total != time.Second {
		t.Fatalf("the paused line: %+v, want it heard whole", r)
	}
	if at < third || at >= SampleRate {
		t.Fatalf("held at sample %d of %d", at, SampleRate)
	}

	// The device: the clip once, in order (its samples, the silence of the hold and of the
	// clip's pacing aside).
	out := read(p, func() []int16 { return slices.Clone(tp.out) })
	clip := ramp(SampleRate)
	if got := nonZero(out); !slices.Equal(got, clip) {
		t.Fatalf("the device got %d samples of the clip's %d, not the clip once in order", len(got), len(clip))
	}

	// The recording: the clip whole, the hold's silence where it fell.
	w := examinerTrack(t, v, rec)
	if got := nonZero(w.Samples); !slices.Equal(got, clip) {
		t.Fatalf("examiner.wav holds %d samples of the clip's %d, not the clip once in order", len(got), len(clip))
	}
	start := slices.Index(w.Samples, clip[0])
	gapAt := start + slices.Index(w.Samples[start:], 0)
	end := len(w.Samples)
	for w.Samples[end-1] == 0 {
		end--
	}
	hold := int(to - from)
	// A buffer or two either way: the recorder places by the wall clock, the player by buffers.
	if gap := end - start - SampleRate; gap < hold-SampleRate/25 || gap > hold+SampleRate/25 {
		t.Errorf("examiner.wav: the clip spans %d samples more than its own, the line was held for %d", gap, hold)
	}
	t.Logf("held at sample %d for %d samples; examiner.wav pauses at sample %d for %d", at, hold, gapAt-start, end-start-SampleRate)
}

// TestPlayerStopWhileHeld: a cut while held drops the rest of the clip, ends the hold, and
// reports what was played before it; the next clip plays at once, unheld.
func TestPlayerStopWhileHeld(t *testing.T) {
	p := nullPlayer(t)
	clip := Clip{Samples: ramp(SampleRate), Rate: SampleRate}
	done := make(chan PlayResult, 1)
	go func() {
		r, _ := p.Play(context.Background(), clip)
		done <- r
	}()
	testutil.Eventually(t, 10*time.Second, func() bool { return read(p, func() int { return p.pos }) >= SampleRate/4 }, "a quarter of the clip to be played")
	p.Pause()
	p.Pause() // a second pause is no second hold
	p.Stop()
	r := testutil.Recv(t, done, 10*time.Second, "the cut clip to return")
	if !r.Interrupted || r.Played >= r.Total {
		t.Fatalf("cut while held: %+v", r)
	}
	if read(p, func() bool { return p.held }) {
		t.Fatal("the hold outlived the cut")
	}
	r, err := p.Play(context.Background(), Clip{Samples: ramp(SampleRate / 10), Rate: SampleRate})
	if err != nil || r.Interrupted || r.Played != r.Total {
		t.Fatalf("the clip after the cut: %+v, %v", r, err)
	}
}

// TestRecordExaminerWhereHeard: on a virtual clock, a one-second clip that begins at 0, is
// paused at 300 ms and resumed at 800 ms, sits in examiner.wav as its first 300 ms at 0 and
// its last 700 ms at 800 ms, sample for sample; a line held between two sentences starts its
// next sentence where it was heard, after the hold. (Before, each clip was written at the
// position of its start, whole: the audio after a pause sat earlier than it was heard by the
// length of the pause.)
func TestRecordExaminerWhereHeard(t *testing.T) {
	ms := func(d int) int { return d * SampleRate / 1000 }
	synctest.Test(t, func(t *testing.T) {
		sink := &holdSink{play: make(chan struct{}), stop: make(chan struct{}, 1)}
		rec, err := NewSessionRecorder(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		v, err := NewVoice(nil, nil, rampSynth{}, sink, WithRecorder(rec))
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan SpeakResult, 1)
		go func() {
			r, _ := v.Speak(context.Background(), "This is the first sentence. This is the second one.", SpeakOptions{})
			done <- r
		}()
		synctest.Wait() // the first sentence is playing, from 0
		time.Sleep(300 * time.Millisecond)
		v.PauseSpeaking()
		time.Sleep(500 * time.Millisecond)
		v.ResumeSpeaking()
		time.Sleep(700 * time.Millisecond)
		sink.play <- struct{}{} // the first played whole, at 1.5 s
		synctest.Wait()         // the second is playing, from 1.5 s
		v.PauseSpeaking()       // held before a sample of it was heard
		time.Sleep(200 * time.Millisecond)
		v.ResumeSpeaking()
		time.Sleep(time.Second)
		sink.play <- struct{}{} // the second played whole, at 2.7 s
		if r := <-done; r.Interrupted || r.Played != 2*time.Second {
			t.Fatalf("the line: %+v", r)
		}
		w := examinerTrack(t, v, rec)
		clip := ramp(SampleRate)
		want := make([]int16, ms(2700))
		copy(want, clip[:ms(300)])
		copy(want[ms(800):], clip[ms(300):])
		copy(want[ms(1700):], clip)
		if !slices.Equal(w.Samples, want) {
			diff := 0
			for diff < min(len(w.Samples), len(want)) && w.Samples[diff] == want[diff] {
				diff++
			}
			t.Fatalf("examiner.wav (%d samples) differs from the audio where it was heard (%d samples) from sample %d (%d ms)",
				len(w.Samples), len(want), diff, diff*1000/SampleRate)
		}
	})
}

// TestHeardAt: the layout of a clip's samples around its line's holds.
func TestHeardAt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pos   int64
		n     int
		holds []hold
		want  []placed
	}{
		{"no hold", 100, 50, nil, []placed{{100, 0, 50}}},
		{"a hold inside", 100, 50, []hold{{120, 200}}, []placed{{100, 0, 20}, {200, 20, 50}}},
		{"two holds", 0, 30, []hold{{10, 20}, {25, 40}}, []placed{{0, 0, 10}, {20, 10, 15}, {40, 15, 30}}},
		{"a hold of an earlier clip", 100, 10, []hold{{20, 60}}, []placed{{100, 0, 10}}},
		{"held before it began", 100, 10, []hold{{80, 150}}, []placed{{150, 0, 10}}},
		{"a hold after its end", 100, 10, []hold{{300, 400}}, []placed{{100, 0, 10}}},
		{"cut while held", 100, 30, []hold{{120, -1}}, []placed{{100, 0, 20}, {120, 20, 30}}},
		{"nothing heard", 100, 0, []hold{{120, 200}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := heardAt(tc.pos, tc.n, tc.holds); !slices.Equal(got, tc.want) {
				t.Errorf("heardAt(%d, %d, %v) = %v, want %v", tc.pos, tc.n, tc.holds, got, tc.want)
			}
		})
	}
}

// FuzzHeardAt states what heardAt keeps for any holds: the runs cover the clip's samples once,
// in order; they sit on the timeline in order without overlapping; none sits inside a hold that
// ended; and the first starts where the clip began, or where a hold ended (one it began in).
func FuzzHeardAt(f *testing.F) {
	f.Add(int64(100), 50, []byte{20, 80})
	f.Add(int64(0), 30, []byte{10, 10, 5, 15})
	f.Add(int64(100), 30, []byte{120, 0})
	f.Fuzz(func(t *testing.T, pos int64, n int, spec []byte) {
		pos, n = max(0, pos%1_000_000), max(0, n%10_000)
		// spec: pairs (gap before the hold, its length); a length of 0 is a hold still on, the
		// last one.
		var holds []hold
		at := int64(0)
		for i := 0; i+1 < len(spec); i += 2 {
			from := at + int64(spec[i])
			if spec[i+1] == 0 {
				holds = append(holds, hold{from, -1})
				break
			}
			holds = append(holds, hold{from, from + int64(spec[i+1])})
			at = from + int64(spec[i+1])
		}
		runs := heardAt(pos, n, holds)
		next, end := 0, int64(-1)
		for i, r := range runs {
			if r.from != next || r.to <= r.from {
				t.Fatalf("run %d covers samples [%d,%d), want from %d: %v", i, r.from, r.to, next, runs)
			}
			next = r.to
			if r.at < end || r.at < pos {
				t.Fatalf("run %d at %d overlaps the one before (ends %d) or precedes the clip (%d): %v", i, r.at, end, pos, runs)
			}
			end = r.at + int64(r.to-r.from)
			for _, h := range holds {
				if h.to >= 0 && r.at < h.to && end > h.from {
					t.Fatalf("run %d [%d,%d) inside the hold %v: %v", i, r.at, end, h, runs)
				}
			}
		}
		if next != n {
			t.Fatalf("the runs cover %d of %d samples: %v", next, n, runs)
		}
		if len(runs) > 0 && runs[0].at != pos {
			covering := slices.ContainsFunc(holds, func(h hold) bool { return h.from <= runs[0].at && h.to == runs[0].at })
			if !covering {
				t.Fatalf("the clip began at %d, its first run sits at %d with no hold ending there: %v (holds %v)", pos, runs[0].at, runs, holds)
			}
		}
	})
}
