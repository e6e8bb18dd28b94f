package voicepath

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
)

// TestBackchannelDecision: over the examiner's line, a voiced run shorter than a backchannel
// is held until its words are known; the words decide (a backchannel or nothing: no turn, the
// line plays on; anything else: a turn); a run past a backchannel's length cuts at once.
func TestBackchannelDecision(t *testing.T) {
	p, _ := newPath(t, newCtrl(nil))
	least := audio.DefaultBargeInSpeech
	for _, tc := range []struct {
		name   string
		voiced time.Duration
		words  string
		cut    bool // the decision cuts the line at once
		turn   bool // the words go on to the controller as a turn
	}{
		{"mm-hmm", 450 * time.Millisecond, "Mm-hmm.", false, false},
		{"yeah okay", 500 * time.Millisecond, "Yeah, okay.", false, false},
		{"right", 300 * time.Millisecond, "right", false, false},
		{"cough", 300 * time.Millisecond, "", false, false},
		{"wait", 320 * time.Millisecond, "Wait.", false, true},
		{"sorry", 400 * time.Millisecond, "Sorry?", false, true},
		{"a sentence", DefaultBackchannelLength, "Sorry, can you repeat that?", true, true},
		{"a long noise", 2 * time.Second, "", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const start = 1000
			var cut bool
			for v := least; v <= tc.voiced && !cut; v += audio.FrameDuration {
				cut = p.bargeInDecision(audio.BargeInEvidence{Voiced: v, Min: least, TurnStartMs: start})
			}
			if cut != tc.cut {
				t.Fatalf("cut = %v, want %v", cut, tc.cut)
			}
			if got := p.heldTurn(audio.FinalTranscript{Transcript: audio.Transcript{Text: tc.words}, StartMs: start}); got != tc.turn {
				t.Errorf("a turn = %v, want %v", got, tc.turn)
			}
			p.gateMu.Lock()
			defer p.gateMu.Unlock()
			if len(p.gate.held) != 0 || p.gate.paused {
				t.Errorf("still held after its words: %v, paused %v", p.gate.held, p.gate.paused)
			}
		})
	}
}

// gateStep is one input to the barge-in gate at a time on the virtual clock (ms from 0): a
// voiced run of a turn so far, a turn's words, the timer firing, or the line ending.
type gateStep struct {
	at     int64
	kind   string // "voice", "words", "tick", "end"
	turn   int64  // the turn's start (voice, words)
	voiced time.Duration
	only   bool // words: a backchannel or nothing
	want   gateAction
}

func voice(at, turn int64, voicedMs int64, want gateAction) gateStep {
	return gateStep{at: at, kind: "voice", turn: turn, voiced: time.Duration(voicedMs) * time.Millisecond, want: want}
}

func words(at, turn int64, only bool, want gateAction) gateStep {
	return gateStep{at: at, kind: "words", turn: turn, only: only, want: want}
}

func tick(at int64, want gateAction) gateStep { return gateStep{at: at, kind: "tick", want: want} }

func end(at int64) gateStep { return gateStep{at: at, kind: "end"} }

// TestBargeGate runs the barge-in gate's state machine on a virtual clock: the onset pauses
// the line; a held turn's words resume it (a backchannel or nothing) or cut it (anything
// else); a pause with no words resumes after the timeout counted from the voice's end, and
// late words still decide; a run past a backchannel's length cuts; overlapping onsets keep
// the line paused until every held turn is decided; the line ending (played out, or cut by a
// command or a kill) ends its pause, and nothing resumes a line that is gone.
func TestBargeGate(t *testing.T) {
	const (
		pause = 100 // ms of voice that pause the line
		cut   = 800 // ms that cut it
		wait  = 1500
	)
	for _, tc := range []struct {
		name  string
		steps []gateStep
	}{
		{"a click is nothing", []gateStep{
			voice(0, 0, 60, gateNone), voice(20, 0, 80, gateNone), words(700, 0, true, gateNone), tick(5000, gateNone)}},
		{"onset pauses, a backchannel resumes", []gateStep{
			voice(0, 0, 60, gateNone), voice(20, 0, 80, gateNone), voice(40, 0, 100, gatePause), voice(60, 0, 120, gateNone),
			voice(400, 0, 460, gateNone), words(1100, 0, true, gateResume), tick(5000, gateNone)}},
		{"onset pauses, a cough (no words) resumes", []gateStep{
			voice(0, 7, 100, gatePause), voice(300, 7, 300, gateNone), words(900, 7, true, gateResume)}},
		{"onset pauses, an interruption cuts", []gateStep{
			voice(0, 0, 100, gatePause), voice(300, 0, 400, gateNone), words(1000, 0, false, gateCut), tick(5000, gateNone)}},
		{"a long run cuts without its words", []gateStep{
			voice(0, 0, 100, gatePause), voice(700, 0, cut, gateCut), tick(5000, gateNone), words(1500, 0, false, gateNone)}},
		{"no words: the timeout resumes, counted from the voice's end", []gateStep{
			voice(0, 0, pause, gatePause), voice(500, 0, 500, gateNone), tick(500+wait-1, gateNone), tick(500+wait, gateResume),
			tick(9000, gateNone)}},
		{"late words after the timeout still cut", []gateStep{
			voice(0, 0, pause, gatePause), tick(wait, gateResume), words(3000, 0, false, gateCut)}},
		{"late backchannel after the timeout is nothing", []gateStep{
			voice(0, 0, pause, gatePause), tick(wait, gateResume), words(3000, 0, true, gateNone)}},
		{"overlapping onsets: paused until both are decided", []gateStep{
			voice(0, 0, pause, gatePause), voice(900, 900, 60, gateNone), voice(940, 900, pause, gateNone),
			words(1100, 0, true, gateNone), tick(2000, gateNone), words(1600, 900, true, gateResume)}},
		{"overlapping onsets: the second one interrupts", []gateStep{
			voice(0, 0, pause, gatePause), voice(900, 900, pause, gateNone), words(1100, 0, true, gateNone),
			words(1700, 900, false, gateCut)}},
		{"overlapping onsets: the first one interrupts", []gateStep{
			voice(0, 0, pause, gatePause), voice(900, 900, pause, gateNone), words(1100, 0, false, gateCut),
			words(1700, 900, true, gateNone)}},
		{"a new pause after a resume", []gateStep{
			voice(0, 0, pause, gatePause), words(800, 0, true, gateResume), voice(2000, 2000, pause, gatePause),
			words(2800, 2000, true, gateResume)}},
		{"the line ends while paused: nothing to resume", []gateStep{
			voice(0, 0, pause, gatePause), end(200), words(900, 0, true, gateNone), tick(5000, gateNone)}},
		{"a kill while paused: its words still interrupt (a next line)", []gateStep{
			voice(0, 0, pause, gatePause), end(100), tick(5000, gateNone), words(900, 0, false, gateCut)}},
		{"the line ends, the voice goes on over the next line", []gateStep{
			voice(0, 0, pause, gatePause), end(200), voice(300, 0, 300, gatePause), words(900, 0, true, gateResume)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := bargeGate{pauseAfter: pause * time.Millisecond, cutAfter: cut * time.Millisecond, timeout: wait * time.Millisecond}
			t0 := time.Unix(1_700_000_000, 0)
			for i, s := range tc.steps {
				now := t0.Add(time.Duration(s.at) * time.Millisecond)
				var got gateAction
				switch s.kind {
				case "voice":
					got = g.evidence(audio.BargeInEvidence{Voiced: s.voiced, Min: 60 * time.Millisecond, TurnStartMs: s.turn}, now)
				case "words":
					_, got = g.words(s.turn, s.only)
				case "tick":
					got = g.tick(now)
				case "end":
					g.lineEnded()
				}
				if got != s.want {
					t.Fatalf("step %d (%s at %d ms): %v, want %v", i, s.kind, s.at, got, s.want)
				}
			}
		})
	}
}

// FuzzBargeGate: whatever the order of voice, words, ticks and line ends, the gate is paused
// exactly when it last said pause and has not said resume or cut since, a resume or cut only
// follows a pause, and a held turn's words are known at most once.
func FuzzBargeGate(f *testing.F) {
	f.Add([]byte{0, 3, 0, 1, 1, 2, 3})
	f.Add([]byte{0, 0, 4, 0, 1, 5, 2, 6})
	f.Fuzz(func(t *testing.T, ops []byte) {
		g := bargeGate{pauseAfter: 100 * time.Millisecond, cutAfter: 800 * time.Millisecond, timeout: 1500 * time.Millisecond}
		now := time.Unix(0, 0)
		paused := false
		seen := map[int64]bool{}
		for _, op := range ops {
			now = now.Add(time.Duration(op%7) * 100 * time.Millisecond)
			turn := int64(op>>5) * 1000
			var act gateAction
			switch op % 4 {
			case 0:
				act = g.evidence(audio.BargeInEvidence{Voiced: time.Duration(op%9) * 100 * time.Millisecond, Min: 60 * time.Millisecond, TurnStartMs: turn}, now)
				delete(seen, turn)
			case 1:
				known, a := g.words(turn, op&16 != 0)
				if known && seen[turn] {
					t.Fatalf("turn %d's words known twice", turn)
				}
				if known {
					seen[turn] = true
				}
				act = a
			case 2:
				act = g.tick(now)
			case 3:
				g.lineEnded()
				paused = false
			}
			switch act {
			case gatePause:
				if paused {
					t.Fatal("paused twice")
				}
				paused = true
			case gateResume:
				if !paused {
					t.Fatal("resumed a line not paused")
				}
				paused = false
			case gateCut:
				paused = false
			}
			if g.paused != paused {
				t.Fatalf("gate paused %v, want %v", g.paused, paused)
			}
			if len(g.held) > maxHeld {
				t.Fatalf("%d turns held", len(g.held))
			}
		}
	})
}

// pauseSink plays a clip in real time and can hold it (audio.Pauser): it keeps the clock of
// what was played, so a pause loses and repeats nothing.
type pauseSink struct {
	mu      sync.Mutex
	stop    chan struct{}
	held    bool
	resumed chan struct{}
	pauses  int
}

func newPauseSink() *pauseSink {
	return &pauseSink{stop: make(chan struct{}), resumed: make(chan struct{})}
}

func (s *pauseSink) Play(ctx context.Context, c audio.Clip) (audio.PlayResult, error) {
	total := time.Duration(int64(len(c.Samples)) * int64(time.Second) / int64(max(c.Rate, 1)))
	var played time.Duration
	for {
		s.mu.Lock()
		stop, held, resumed := s.stop, s.held, s.resumed
		s.mu.Unlock()
		if played >= total {
			return audio.PlayResult{Played: total, Total: total}, nil
		}
		if held {
			select {
			case <-resumed:
				continue
			case <-stop:
			case <-ctx.Done():
			}
			return audio.PlayResult{Played: played, Total: total, Interrupted: true}, ctx.Err()
		}
		step := min(5*time.Millisecond, total-played)
		select {
		case <-time.After(step):
			s.mu.Lock()
			if !s.held || s.resumed != resumed { // a pause in the step: round to the step
				played += step
			}
			s.mu.Unlock()
		case <-stop:
			return audio.PlayResult{Played: played, Total: total, Interrupted: true}, nil
		case <-ctx.Done():
			return audio.PlayResult{Played: played, Total: total, Interrupted: true}, ctx.Err()
		}
	}
}

func (s *pauseSink) Pause() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = true
	s.pauses++
}

func (s *pauseSink) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		s.held = false
		close(s.resumed)
		s.resumed = make(chan struct{})
	}
}

func (s *pauseSink) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.stop)
	s.stop = make(chan struct{})
	if s.held {
		s.held = false
		close(s.resumed)
		s.resumed = make(chan struct{})
	}
}

func (s *pauseSink) Close() error { return nil }

func (s *pauseSink) isHeld() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// TestPauseOnVoice drives a path over a sink that can pause: the onset pauses the examiner's
// line; a backchannel resumes it from where it paused, so the line completes, whole (the
// controller hears it done, not cut); an interruption cuts it, and the controller hears what
// was said before the pause; a kill while paused (a command's cut, Close) ends the line at once
// and the next line plays; a line whose words the candidate never follows with any resumes
// after the timeout.
func TestPauseOnVoice(t *testing.T) {
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Skipf("espeak-ng: %v", err)
	}
	const said = "Breakfast runs from seven. What would you change first?"
	for _, tc := range []struct {
		name  string
		after func(p *Path, s *pauseSink) // once the line is paused
		cut   bool                        // the controller hears of a cut
	}{
		{"backchannel resumes", func(p *Path, _ *pauseSink) {
			p.heldTurn(audio.FinalTranscript{Transcript: audio.Transcript{Text: "Mm-hmm."}, StartMs: 1000})
		}, false},
		{"no words resume after the timeout", func(*Path, *pauseSink) {}, false},
		{"interruption cuts", func(p *Path, _ *pauseSink) {
			p.heldTurn(audio.FinalTranscript{Transcript: audio.Transcript{Text: "Wait, I have a question."}, StartMs: 1000})
		}, true},
		{"a command kills it", func(p *Path, _ *pauseSink) { p.Interrupt(CauseCommand) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCtrl(nil)
			sink := newPauseSink()
			p, err := New(c, Parts{Synthesizer: espeak, Sink: sink}, WithLogger(testutil.Logger(t, -4)), WithBargeIn(true),
				WithPauseOnVoice(DefaultPauseAfter, 300*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			p.queue.push(line{text: said, seq: 1, n: 1})
			testutil.Eventually(t, 10*time.Second, func() bool { return p.v.State() == audio.StateExaminerSpeaking }, "the line to start")
			for v := 60 * time.Millisecond; v <= DefaultPauseAfter; v += audio.FrameDuration {
				if p.bargeInDecision(audio.BargeInEvidence{Voiced: v, Min: 60 * time.Millisecond, TurnStartMs: 1000}) {
					t.Fatal("the onset cut the line")
				}
			}
			if !sink.isHeld() {
				t.Fatal("the onset did not pause the line")
			}
			tc.after(p, sink)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := p.WaitIdle(ctx); err != nil {
				t.Fatal("the line never ended:", err)
			}
			var heard string
			got := false
			select {
			case heard = <-c.cuts:
				got = true
			default:
			}
			if got != tc.cut {
				t.Fatalf("cut reported = %v (%q), want %v", got, heard, tc.cut)
			}
			if res := p.LastHeard(); !tc.cut && tc.name != "a command kills it" && res != nil {
				t.Errorf("the line was cut: heard %q", res.PlayedText)
			}
			if tc.cut && strings.Contains(heard, "change first") {
				t.Errorf("the controller was told the candidate heard the line past the pause: %q", heard)
			}
			if sink.isHeld() {
				t.Fatal("the sink is still held after the line ended")
			}
			testutil.Recv(t, c.done, 10*time.Second, "the line to be done")
			// The next line plays, unheld, to its end.
			p.queue.push(line{text: "Next line.", seq: 2, n: 1})
			testutil.Recv(t, c.done, 10*time.Second, fmt.Sprintf("the next line to be said (%s)", tc.name))
		})
	}
}
