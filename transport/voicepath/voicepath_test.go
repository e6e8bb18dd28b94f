package voicepath

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/offline"
	"github.com/examtui/examtui/spec"
)

// clockSink plays a clip in real time, as a sound card or a network track would; Stop cuts it.
type clockSink struct {
	mu   sync.Mutex
	stop chan struct{}
}

func newClockSink() *clockSink { return &clockSink{stop: make(chan struct{})} }

func (s *clockSink) Play(ctx context.Context, c audio.Clip) (audio.PlayResult, error) {
	total := time.Duration(int64(len(c.Samples)) * int64(time.Second) / int64(max(c.Rate, 1)))
	s.mu.Lock()
	stop := s.stop
	s.mu.Unlock()
	start := time.Now()
	t := time.NewTimer(total)
	defer t.Stop()
	select {
	case <-t.C:
		return audio.PlayResult{Played: total, Total: total}, nil
	case <-stop:
	case <-ctx.Done():
	}
	return audio.PlayResult{Played: min(time.Since(start), total), Total: total, Interrupted: true}, ctx.Err()
}

func (s *clockSink) Stop() {
	s.mu.Lock()
	close(s.stop)
	s.stop = make(chan struct{})
	s.mu.Unlock()
}

func (s *clockSink) Close() error { return nil }

// voices is espeak-ng keeping the voice of each sentence it is asked for.
type voices struct {
	audio.Synthesizer
	mu  sync.Mutex
	got []string
}

func (v *voices) Synthesize(ctx context.Context, text string, o audio.SpeakOptions) (audio.Clip, error) {
	v.mu.Lock()
	v.got = append(v.got, o.Voice)
	v.mu.Unlock()
	return v.Synthesizer.Synthesize(ctx, text, o)
}

func (v *voices) said() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.got...)
}

// ctrl is a controller that keeps what the path tells it.
type ctrl struct {
	exam *spec.Exam
	cuts chan string
	done chan struct{}
}

func newCtrl(e *spec.Exam) *ctrl {
	return &ctrl{exam: e, cuts: make(chan string, 8), done: make(chan struct{}, 64)}
}

func (c *ctrl) Exam() *spec.Exam                               { return c.exam }
func (c *ctrl) SubmitTurn(context.Context, runtime.Turn) error { return nil }
func (c *ctrl) Speculate(context.Context, runtime.Turn) error  { return nil }
func (c *ctrl) Interim(string, float64) error                  { return nil }
func (c *ctrl) UserActivity(bool)                              {}
func (c *ctrl) SpeechInterrupted(heard string) error           { c.cuts <- heard; return nil }
func (c *ctrl) SpeechDone()                                    { c.done <- struct{}{} }
func (c *ctrl) Overheard(context.Context, runtime.Turn, runtime.NotAssessedReason, string) error {
	return nil
}

// exam is the example exam with the opening persona's voice set to voice.
func exam(t *testing.T, voice string) *spec.Exam {
	t.Helper()
	src, err := examples.FS.ReadFile("hotel-breakfast.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if voice != "" {
		src = []byte(strings.Replace(string(src), "persona:\n  id: examiner\n", "persona:\n  id: examiner\n  voice: "+voice+"\n", 1))
	}
	e, diags, err := spec.Compile("hotel-breakfast.yaml", src)
	if err != nil {
		t.Fatalf("compile: %v\n%v", err, diags)
	}
	return e
}

func event(t *testing.T, seq int64, p runtime.Payload) runtime.Event {
	t.Helper()
	ev, err := runtime.NewEvent("s", seq, time.Now(), p)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func newPath(t *testing.T, c Controller, opts ...Option) (*Path, *voices) {
	t.Helper()
	espeak, err := audio.NewEspeak()
	if err != nil {
		t.Skipf("espeak-ng: %v", err)
	}
	synth := &voices{Synthesizer: espeak}
	p, err := New(c, Parts{Synthesizer: synth, Sink: newClockSink()}, append([]Option{WithLogger(testutil.Logger(t, -4))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, synth
}

// TestPersonaVoice: each line is said in the voice of its node's persona; a node whose
// persona names none uses the default voice. This is the path every transport uses, so the
// room bot and the worker honour `voice:` as the microphone does.
func TestPersonaVoice(t *testing.T) {
	e := exam(t, "en+m7")
	var withVoice, without string
	for _, n := range e.Nodes {
		switch {
		case n.Controller.Voice == "en+m7" && withVoice == "":
			withVoice = n.NodeID
		case n.Controller.Voice == "" && without == "":
			without = n.NodeID
		}
	}
	if withVoice == "" || without == "" {
		t.Fatalf("the example has no node of each kind (with %q, without %q)", withVoice, without)
	}
	c := newCtrl(e)
	p, synth := newPath(t, c, WithDefaultVoice("en-gb"))
	p.Deliver(event(t, 1, &runtime.NodeEnteredPayload{NodeID: withVoice}))
	p.Deliver(event(t, 2, &runtime.SpokenPayload{NodeID: withVoice, Text: "Welcome."}))
	testutil.Recv(t, c.done, 20*time.Second, "the first line to be said")
	p.Deliver(event(t, 3, &runtime.NodeEnteredPayload{NodeID: without}))
	p.Deliver(event(t, 4, &runtime.SpokenPayload{NodeID: without, Text: "Hello."}))
	testutil.Recv(t, c.done, 20*time.Second, "the second line to be said")
	if got := synth.said(); len(got) != 2 || got[0] != "en+m7" || got[1] != "en-gb" {
		t.Fatalf("voices %q, want the persona's then the default", got)
	}
}

// TestInterruptions cuts a long line in each way there is: the controller hears of the
// candidate's cuts and of an immediate instruction with what was heard, not of a command it
// ordered itself; lines queued before the cut are dropped, and a line that comes after the
// interrupting event (the instruction's own reply) is said.
func TestInterruptions(t *testing.T) {
	long := strings.Repeat("The breakfast service runs from seven until ten every morning. ", 6)
	cases := []struct {
		name     string
		cut      func(p *Path)
		reported bool
	}{
		{"barge-in", func(p *Path) { p.bargedIn(0) }, true},
		{"candidate stop", func(p *Path) { p.Interrupt(CauseStop) }, true},
		{"examiner command", func(p *Path) { p.Interrupt(CauseCommand) }, false},
		{"pause event", func(p *Path) {
			p.Deliver(event(t, 3, &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress}))
		}, false},
		{"immediate instruction event", func(p *Path) {
			p.Deliver(event(t, 3, &runtime.AdminInstructionPayload{Mode: runtime.AdminImmediate, Text: "ask about X", Status: runtime.AdminReceived}))
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCtrl(nil)
			ends := make(chan LineEnd, 8)
			p, _ := newPath(t, c, WithLineEnd(func(le LineEnd) { ends <- le }))
			p.Deliver(event(t, 1, &runtime.SpokenPayload{Text: long}))
			testutil.Eventually(t, 20*time.Second, func() bool { return p.Audio().State() == audio.StateExaminerSpeaking }, "the line to play")
			p.Deliver(event(t, 2, &runtime.SpokenPayload{Text: "Dropped.", TTSSpeed: 1.5})) // queued, not joined
			cutAt := time.Now()
			tc.cut(p)
			p.Deliver(event(t, 4, &runtime.SpokenPayload{Text: "After the cut."}))
			testutil.Recv(t, c.done, 20*time.Second, "the speech to be done")
			if took := time.Since(cutAt); took > 10*time.Second {
				t.Errorf("the line played on for %s", took)
			}
			testutil.Eventually(t, 20*time.Second, p.Idle, "the path to be idle")
			select {
			case heard := <-c.cuts:
				if !tc.reported {
					t.Errorf("the controller was told of its own cut (heard %q)", heard)
				}
			default:
				if tc.reported {
					t.Error("the controller was not told of the cut")
				}
			}
			if h := p.LastHeard(); h == nil || !h.Interrupted || strings.Contains(h.PlayedText, strings.TrimSpace(long)) {
				t.Errorf("last heard %+v: the line was not cut", h)
			}
			// Each line's end is told (WithLineEnd): the cut one with what was played, then the
			// line after the cut whole, with nothing after it; the dropped line has no end of
			// its own, the cut line's covers it.
			if le := testutil.Recv(t, ends, 5*time.Second, "the cut line's end"); le.Seq != 1 || le.Ending != LineCut || le.Played > le.Total || le.Played > 10*time.Second {
				t.Errorf("cut line's end %+v", le)
			}
			if le := testutil.Recv(t, ends, 5*time.Second, "the last line's end"); le.Seq != 4 || le.Ending != LineWhole || !le.Idle || le.Through != 4 || le.Played != le.Total {
				t.Errorf("last line's end %+v", le)
			}
		})
	}
}

func TestLineEndingStrings(t *testing.T) {
	for e := LineUnknown; e <= LineFailed+1; e++ {
		want := e
		if e > LineFailed {
			want = LineUnknown
		}
		if got := ParseLineEnding(e.String()); got != want {
			t.Errorf("ParseLineEnding(%q) = %v, want %v", e.String(), got, want)
		}
	}
}

// TestQueueJoinsAndDrops: lines in a row with the same voice and speed are said as one (the
// sentences of a streamed reply, back to back); an interruption drops the lines queued before
// its event and keeps the ones after.
func TestQueueJoinsAndDrops(t *testing.T) {
	q := newSpeechQueue()
	slow := audio.SpeakOptions{Speed: 0.8}
	q.push(line{text: "One.", seq: 1, n: 1})
	q.push(line{text: "Two.", seq: 2, n: 1})
	q.push(line{text: "Slow.", opts: slow, seq: 3, n: 1})
	q.push(line{text: "Four.", seq: 5, n: 1})
	ctx := context.Background()
	l, _, ok := q.take(ctx)
	if !ok || l.text != "One. Two." || l.n != 2 || l.seq != 2 {
		t.Fatalf("first take %+v", l)
	}
	if q.idle() {
		t.Fatal("idle while a line is being said")
	}
	dropped, cut := q.interrupt(CauseCommand, 4)
	if dropped != 1 || !cut || q.cause() != CauseCommand {
		t.Fatalf("interrupt before 4: dropped %d, cut %v, cause %v", dropped, cut, q.cause())
	}
	q.finish()
	l, _, ok = q.take(ctx)
	if !ok || l.text != "Four." {
		t.Fatalf("after the cut %+v, want the line after the interrupting event", l)
	}
	if _, cut := q.interrupt(CauseStop, 5); cut {
		t.Error("an interruption cut a line that came after it")
	}
	if q.finish(); !q.idle() {
		t.Error("not idle once every line was said")
	}
}

// TestRealController runs the path under the real controller, which delivers its events while
// it holds its lock: the opening is said in the opening persona's voice and the controller
// hears the speech is done. (A path that asked the controller anything while an event was
// being delivered, as an early version asked for the exam, deadlocked here.)
func TestRealController(t *testing.T) {
	fan := runtime.NewFanout()
	ex, err := offline.New()
	if err != nil {
		t.Fatal(err)
	}
	c, err := runtime.NewController(exam(t, "en+m7"), ex, runtime.WithSink(fan), runtime.WithSessionID("real"),
		runtime.WithLogger(testutil.Logger(t, -4)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	p, synth := newPath(t, c)
	fan.Subscribe(p)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, func() bool { return len(synth.said()) > 0 && p.Idle() }, "the opening to be said")
	if got := synth.said(); got[0] != "en+m7" {
		t.Fatalf("the opening was said in %q, want the persona's voice", got[0])
	}
}
