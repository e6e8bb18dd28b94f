package audio

import (
	"math/rand/v2"
	"testing"
	"time"
)

// adaptiveEndpoint is the endpointing of a room's adaptive end of turn.
func adaptiveEndpoint() EndpointConfig {
	c := DefaultEndpointConfig()
	c.CompleteEndpointingDelay = DefaultCompleteEndpointingDelay
	c.SureEndpointingDelay = DefaultSureEndpointingDelay
	c.VAD.Hangover = 100 * time.Millisecond
	return c
}

// voiced is d of a steady tone, loud enough for the VAD.
func voiced(d time.Duration) []int16 {
	return sine(220, SampleRate, int(d.Seconds()*SampleRate), 8000)
}

// sayAll pushes a scene through ep, reading every pause as a sure answer at once (as a turn
// detector would that found the words complete), and returns the turns and what was learnt.
func sayAll(t *testing.T, ep *Endpointer, s []int16) (turns []*Utterance, learned []LearnedPause) {
	t.Helper()
	for _, f := range frames(s) {
		r := ep.Push(f)
		if r.Paused {
			ep.ReleaseSure()
		}
		if r.Learned != nil {
			learned = append(learned, *r.Learned)
		}
		if r.Utterance != nil {
			turns = append(turns, r.Utterance)
		}
	}
	return turns, learned
}

// TestEndpointerLearnsPauses: a candidate cut off once at a pause after words that read as
// complete is not cut off at a pause that long again; pauses the wait already covered teach
// what it covered; the wait never exceeds the min delay.
func TestEndpointerLearnsPauses(t *testing.T) {
	ep, err := NewEndpointer(adaptiveEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	w := voiced(700 * time.Millisecond)
	// A fresh candidate: a sure answer ends 150 ms into a 300 ms pause (a false end), and the
	// speech that follows within the window teaches the wait.
	turns, learned := sayAll(t, ep, buildScene(SampleRate, w, 300, w, 1500).samples)
	if len(turns) != 2 || turns[0].Delay != DefaultSureEndpointingDelay {
		t.Fatalf("turns %+v: want the first ended after the sure wait, then a second", turns)
	}
	if len(learned) != 1 || learned[0].Where != PauseAfterEnd || absDur(learned[0].Pause-300*time.Millisecond) > 2*FrameDuration {
		t.Fatalf("learned %+v: want the 300 ms pause, after the turn ended", learned)
	}
	wait := ep.LearnedWait()
	if want := learned[0].Pause*5/4 + FrameDuration; wait != want {
		t.Fatalf("learned wait %v, want %v (the pause a quarter longer, and a frame)", wait, want)
	}
	// The same pause again: one turn, ended after the learnt wait.
	turns, learned = sayAll(t, ep, buildScene(0, w, 300, w, 1500).samples)
	if len(turns) != 1 || turns[0].Delay != wait || len(learned) != 0 {
		t.Fatalf("turns %+v, learned %+v: a 300 ms pause cut off again", turns, learned)
	}
	// A shorter pause is covered and teaches nothing; a longer one is a false end again.
	turns, learned = sayAll(t, ep, buildScene(0, w, 200, w, 1500, w, 420, w, 1500).samples)
	if len(turns) != 3 || len(learned) != 1 || learned[0].Wait != ep.cfg.MinEndpointingDelay {
		t.Fatalf("turns %+v, learned %+v: want the 420 ms pause cut off, and the wait capped at the min delay", turns, learned)
	}
	// Speech long after a turn is a new answer, not a false end.
	turns, learned = sayAll(t, ep, buildScene(0, w, 1500, w, 1500).samples)
	if len(turns) != 2 || len(learned) != 0 {
		t.Fatalf("turns %+v, learned %+v", turns, learned)
	}
}

// TestEndpointerLearnsInsideATurn: a short pause the candidate goes on after teaches the wait
// whether its words read as complete, too few to tell (as after "Hello" from a recogniser that
// writes no comma), or were not read in time, so a later sure answer waits for it; a pause its
// words held (trailing: "line," or "because") teaches nothing, however short or long.
func TestEndpointerLearnsInsideATurn(t *testing.T) {
	w := voiced(700 * time.Millisecond)
	for _, tc := range []struct {
		name  string
		read  func(*Endpointer)
		teach bool
	}{
		{"trailing words hold the pause", func(e *Endpointer) { e.Hold(true) }, false},
		{"too few words to tell", func(*Endpointer) {}, true},
		{"not read before the candidate went on", (*Endpointer).HoldUnread, true},
		{"words that read as complete", func(e *Endpointer) { e.Release() }, true},
		{"words that read as sure", func(e *Endpointer) { e.ReleaseSure() }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ep, err := NewEndpointer(adaptiveEndpoint())
			if err != nil {
				t.Fatal(err)
			}
			var turns []*Utterance
			var learned []LearnedPause
			say := func(s []int16, read func(*Endpointer)) {
				for _, f := range frames(s) {
					r := ep.Push(f)
					if r.Paused {
						read(ep)
					}
					if r.Learned != nil {
						learned = append(learned, *r.Learned)
					}
					if r.Utterance != nil {
						turns = append(turns, r.Utterance)
					}
				}
			}
			hold := func(e *Endpointer) { e.Hold(true) }
			say(buildScene(SampleRate, w, 900, w, 3500).samples, hold)
			if len(turns) != 1 || len(learned) != 0 {
				t.Fatalf("turns %+v, learned %+v: a thinking pause the words held taught something", turns, learned)
			}
			// The pause is read at once; the reading of the pause's end (1500 ms of quiet) is
			// a trailing one, so only the pause inside the answer can end the turn early.
			first := true
			say(buildScene(0, w, 130, w, 3500).samples, func(e *Endpointer) {
				if first {
					tc.read(e)
					first = false
					return
				}
				hold(e)
			})
			if len(turns) != 2 {
				t.Fatalf("turns %+v: want the 130 ms pause inside one turn", turns)
			}
			if !tc.teach {
				if len(learned) != 0 || ep.LearnedWait() != 0 {
					t.Fatalf("learned %+v (wait %v): a pause the words held taught the wait", learned, ep.LearnedWait())
				}
				return
			}
			if len(learned) != 1 || learned[0].Where != PauseInTurn || absDur(learned[0].Pause-130*time.Millisecond) > 2*FrameDuration {
				t.Fatalf("learned %+v: want the 130 ms pause learnt, inside the turn", learned)
			}
			// A sure answer with a pause that long: waited out, ended after the learnt wait.
			say(buildScene(0, w, 150, w, 1500).samples, (*Endpointer).ReleaseSure)
			if len(turns) != 3 || turns[2].Delay != ep.LearnedWait() || ep.LearnedWait() <= DefaultSureEndpointingDelay {
				t.Fatalf("turns %+v (learnt wait %v): want one more turn, ended after the learnt wait", turns, ep.LearnedWait())
			}
		})
	}
}

// FuzzEndpointerPauseLearning states the invariant of the learnt wait over any candidate: the
// learnt wait only grows and never exceeds the min delay, every pause learnt is a real pause
// of the scene, and a candidate is never cut off twice at a pause they already showed (each
// false end is at a pause more than a quarter longer than any shown before it, unless the wait
// is capped); a pause the words held (a trailing reading, here one pause in four) teaches
// nothing, and one not read before the candidate went on (another in four) teaches as any.
func FuzzEndpointerPauseLearning(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3, 42, 2026} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 7))
		cfg := adaptiveEndpoint()
		ep, err := NewEndpointer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var parts []any
		var gaps []time.Duration
		for range 6 {
			for k := range 1 + rng.IntN(3) {
				if k > 0 {
					gap := time.Duration(110+rng.IntN(500)) * time.Millisecond
					gaps = append(gaps, gap)
					parts = append(parts, int(gap.Milliseconds()))
				}
				parts = append(parts, voiced(time.Duration(200+rng.IntN(600))*time.Millisecond))
			}
			parts = append(parts, 1500)
		}
		// The test's own account of the candidate's pauses, from the VAD's results, not the
		// learner's: a short pause the candidate went on after inside a turn, or a turn that a
		// release ended and the candidate went on after within the window.
		var prev, shown time.Duration
		var pausedAt int64
		var held bool
		var last *Utterance
		ms := func(samples int64) time.Duration { return time.Duration(samples) * time.Second / SampleRate }
		for _, fr := range frames(buildScene(SampleRate, parts...).samples) {
			r := ep.Push(fr)
			if lw := ep.LearnedWait(); lw < prev || lw > cfg.MinEndpointingDelay {
				t.Fatalf("learned wait %v after %v (min delay %v)", lw, prev, cfg.MinEndpointingDelay)
			}
			prev = ep.LearnedWait()
			if l := r.Learned; l != nil {
				real := false
				for _, g := range gaps {
					real = real || absDur(l.Pause-g) <= 2*FrameDuration
				}
				if !real {
					t.Fatalf("learnt a %v pause; the scene's pauses are %v", l.Pause, gaps)
				}
				if l.Where == PauseInTurn && held {
					t.Fatalf("learnt a %v pause the words held", l.Pause)
				}
			}
			switch {
			case r.TurnStarted && last != nil && last.Delay < cfg.MinEndpointingDelay && r.TurnStartMs > last.EndMs && time.Duration(r.TurnStartMs-last.DecidedMs)*time.Millisecond <= falseEndWindow:
				pause := ms((r.TurnStartMs - last.EndMs) * SampleRate / 1000)
				if pause <= shown*5/4-FrameDuration && learntWait(cfg, shown) < cfg.MinEndpointingDelay {
					t.Fatalf("cut off at a %v pause after going on after a %v one", pause, shown)
				}
				shown = max(shown, pause)
			case r.Resumed && !held && ms(resumedAt(r.VAD, fr)-pausedAt) < cfg.MinEndpointingDelay:
				shown = max(shown, ms(resumedAt(r.VAD, fr)-pausedAt))
			}
			if r.Paused {
				pausedAt = r.VAD.LastVoicedEnd
				switch held = false; rng.IntN(4) {
				case 0:
					ep.Hold(true)
					held = true
				case 1:
					ep.HoldUnread() // read too late: the candidate went on first
				default:
					ep.ReleaseSure()
				}
			}
			if r.Utterance != nil {
				last = r.Utterance
			}
		}
	})
}

func absDur(d time.Duration) time.Duration { return max(d, -d) }
