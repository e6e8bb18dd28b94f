package runtime_test

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// TestResumeParity resumes the exam from its event log after every call that emitted events
// and compares the resumed controller's state with the live one's (runtime.ParityState: every
// field of the per-node state, the visits and the beats), for a walk through
// every node of the demo exam and for every shipped example script. A field that the live node
// entry resets and the replay does not (or the replay of a node's events restores differently
// from how the live run built it) shows up here as a difference at that point of the log.
func TestResumeParity(t *testing.T) {
	demo := runtimetest.DemoExam(t, nil)
	type tc struct {
		name  string
		exam  *spec.Exam
		steps []headless.TurnStep
		opts  []runtime.Option
		// resumeAfter are the steps after which the live exam itself is stopped and resumed
		// from its log an hour later, so later logs hold resumes to replay.
		resumeAfter []int
		streamed    bool // the offline examiner streams its replies (spoken before the observation)
		busy        bool // every read of the clock finds it a millisecond on (a machine short of CPU)
	}
	cases := []tc{{name: "demo-walk", exam: demo, steps: demoWalk(demo)},
		// The examiner's context through its summarising paths: a budget of 4 messages (the
		// in-node history compressed every few turns, the append strategy's carried history
		// trimmed), beats that summarise when they fire, every context strategy, barge-ins and
		// both kinds of admin instruction.
		{name: "demo-context", exam: contextVariant(demo), steps: contextWalk(demo), opts: []runtime.Option{runtime.WithContextBudget(4, 400)}},
		{name: "demo-context-resumed", exam: contextVariant(demo), steps: contextWalk(demo), opts: []runtime.Option{runtime.WithContextBudget(4, 400)},
			resumeAfter: []int{4, 7, 9}},
		{name: "demo-context-streamed", exam: contextVariant(demo), steps: contextWalk(demo), opts: []runtime.Option{runtime.WithContextBudget(4, 400)},
			resumeAfter: []int{6}, streamed: true},
		// On a busy machine time passes between the controller's reads of the clock: the
		// clocks a replay runs on the stored timestamps must still read what the live ones did.
		{name: "demo-walk-busy", exam: demo, steps: demoWalk(demo), busy: true},
		{name: "demo-context-resumed-busy", exam: contextVariant(demo), steps: contextWalk(demo), opts: []runtime.Option{runtime.WithContextBudget(4, 400)},
			resumeAfter: []int{4, 7, 9}, busy: true}}
	for _, n := range examples.Scripts() {
		s, err := headless.LoadScriptFS(examples.FS, n)
		if err != nil {
			t.Fatal(err)
		}
		exam, err := s.CompileSpec()
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{name: strings.TrimSuffix(n, ".yaml"), exam: exam, steps: s.Turns})
		if n == "hotel-low-confidence.yaml" {
			// Stopped between the doubtful attempt and its clear repeat: the resumed exam gates
			// the repeat on the segments it rebuilt from the log.
			cases = append(cases, tc{name: "hotel-low-confidence-resumed", exam: exam, steps: s.Turns, resumeAfter: []int{2}})
		}
	}
	if len(cases) < 9 {
		t.Fatalf("only %d cases", len(cases))
	}
	demoNodes := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newParityRun(t, tc.exam, tc.streamed, tc.opts...)
			if tc.busy {
				r.clock = &busyClock{VirtualClock: r.clock.(*runtime.VirtualClock), tick: time.Millisecond}
				r.c = r.newController(runtime.WithSessionID("parity"))
			}
			r.resumeAfter = tc.resumeAfter
			r.play(tc.steps)
			if r.checks == 0 {
				t.Fatal("nothing was compared")
			}
			if tc.streamed && !r.spokeStreamed() {
				t.Fatal("nothing was streamed")
			}
			if r.resumes != len(tc.resumeAfter) {
				t.Fatalf("the live exam was resumed %d times, want %d", r.resumes, len(tc.resumeAfter))
			}
			if tc.name == "demo-walk" {
				for n := range r.nodes {
					demoNodes[n] = true
				}
			}
		})
	}
	for _, n := range demo.Nodes {
		if !demoNodes[n.NodeID] {
			t.Errorf("demo node %s was never compared after a resume", n.NodeID)
		}
	}
}

// demoWalk answers twice in every node of exam, waits, and advances, so every node is entered.
func demoWalk(exam *spec.Exam) []headless.TurnStep {
	say := func(s string) headless.TurnStep { return headless.TurnStep{Say: &s} }
	wait, advance := 5.0, "advance"
	var steps []headless.TurnStep
	for range exam.Nodes {
		steps = append(steps, say("I think the guests in a hurry need a faster option."),
			say("What do you mean?"), headless.TurnStep{Wait: &wait}, headless.TurnStep{Control: &advance})
	}
	return steps
}

// contextVariant is the demo exam with every beat summarising the context when it fires (and
// due sooner), and the nodes' context strategies cycling through append, reset_with_summary and reset.
func contextVariant(demo *spec.Exam) *spec.Exam {
	exam := *demo
	exam.Beats = slices.Clone(demo.Beats)
	for i := range exam.Beats {
		exam.Beats[i].Summary = true
		if exam.Beats[i].AtSec > 0 { // due within the walk's waits: the node's beat, then the wrap-up
			exam.Beats[i].AtSec = 30*i - 10
		}
	}
	exam.Nodes = slices.Clone(demo.Nodes)
	strategies := []spec.ContextStrategy{spec.ContextAppend, spec.ContextResetWithSummary, spec.ContextReset}
	for i := range exam.Nodes {
		exam.Nodes[i].LLM.ContextStrategy = strategies[i%len(strategies)]
	}
	return &exam
}

// contextWalk is demoWalk with more to remember in every node: a barge-in, queued
// instructions (consumed by a turn, chained after an immediate one, not actionable), an
// immediate one, a line to say, a silent turn and long enough a wait for the node's beats.
func contextWalk(exam *spec.Exam) []headless.TurnStep {
	say := func(s string) headless.TurnStep { return headless.TurnStep{Say: &s} }
	interrupt := func(s string) headless.TurnStep { return headless.TurnStep{Interrupt: &s} }
	admin := func(mode, text string) headless.TurnStep {
		return headless.TurnStep{Admin: &headless.AdminStep{Mode: mode, Text: text, Sender: "dr-lee"}}
	}
	silence, wait, advance := 6.0, 40.0, "advance"
	var steps []headless.TurnStep
	for range exam.Nodes {
		steps = append(steps, say("I think the guests in a hurry need a faster option."),
			admin("queued", "Ask about the costs."), interrupt("Sorry, can I add that the staff matter too?"),
			headless.TurnStep{Silence: &silence},
			// Queued behind the immediate one, which chains them: one the offline examiner
			// cannot act on (not actionable, nothing said) and one it says.
			admin("queued", "The candidate looks tired, keep the pace gentle."),
			admin("queued", "Tell the candidate that the manager has approved overtime."),
			admin("immediate", "Ask the candidate to speak up."),
			say("What do you mean?"), admin("say", "We have a few minutes left for this part."),
			admin("queued", "The candidate seems unsure about the budget."),
			say("We would add a second coffee station by the door."),
			headless.TurnStep{Wait: &wait}, say("And a grab-and-go table."), headless.TurnStep{Control: &advance})
	}
	return steps
}

// parityRun drives one exam live on a virtual clock, as `examtui test` plays a script, and
// checks parity after every call.
type parityRun struct {
	t           *testing.T
	exam        *spec.Exam
	opts        []runtime.Option // for the live and every resumed controller
	resumeAfter []int
	c           *runtime.Controller
	clock       advancingClock
	rec         *runtime.Recorder
	seen        int // events at the last comparison
	checks      int
	resumes     int // resumes of the live exam itself (resumeAfter)
	streamed    bool
	nodes       map[string]bool // nodes a comparison was made in
}

// advancingClock is the clock a parity run drives: a VirtualClock, or a busyClock over one.
type advancingClock interface {
	runtime.Clock
	Advance(time.Duration)
}

// busyClock is a VirtualClock that moves on by tick at every read, as the wall clock does
// between two reads on a machine short of CPU.
type busyClock struct {
	*runtime.VirtualClock
	tick time.Duration
}

func (b *busyClock) Now() time.Time {
	b.Advance(b.tick)
	return b.VirtualClock.Now()
}

func newParityRun(t *testing.T, exam *spec.Exam, streamed bool, opts ...runtime.Option) *parityRun {
	r := &parityRun{t: t, exam: exam, opts: opts, clock: runtime.NewVirtualClock(t0), rec: &runtime.Recorder{}, nodes: map[string]bool{},
		streamed: streamed}
	r.c = r.newController(runtime.WithSessionID("parity"))
	return r
}

// newController is a controller on the run's clock, examiner and recorder, with the run's
// options after opts.
func (r *parityRun) newController(opts ...runtime.Option) *runtime.Controller {
	c, err := runtime.NewController(r.exam, r.examiner(), append(append([]runtime.Option{runtime.WithClock(r.clock),
		runtime.WithSink(runtime.NewFanout(r.rec))}, opts...), r.opts...)...)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { _ = c.Close() })
	return c
}

func (r *parityRun) play(steps []headless.TurnStep) {
	t := r.t
	if err := r.c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	r.compare("start")
	for i, st := range steps {
		if r.c.Snapshot().State.Terminal() {
			return
		}
		err := r.step(st)
		switch {
		case errors.Is(err, runtime.ErrExamOver):
			return
		case err != nil:
			t.Logf("step %d (%s): %v", i+1, st.Kind(), err) // as `examtui test`, a refused step is not fatal
		}
		r.compare(fmt.Sprintf("step %d (%s)", i+1, st.Kind()))
		if t.Failed() {
			return
		}
		if slices.Contains(r.resumeAfter, i+1) && !r.c.Snapshot().State.Terminal() {
			r.restart()
			r.compare(fmt.Sprintf("resume after step %d", i+1))
		}
	}
}

func (r *parityRun) step(st headless.TurnStep) error {
	ctx := r.t.Context()
	say := st.Say
	if st.Interrupt != nil {
		say = st.Interrupt
	}
	switch {
	case say != nil:
		r.advance(2 * time.Second)
		if st.Interrupt != nil {
			// The candidate barges in on the examiner's last line, having heard its first words.
			if err := r.c.SpeechInterrupted(r.heardOfLastLine()); err != nil {
				return err
			}
			r.compare("barge-in")
		}
		text := headless.SpokenText(*say)
		speech := time.Duration(float64(len(strings.Fields(text)))/2.5*float64(time.Second)) + 500*time.Millisecond + headless.Pauses(*say)
		r.c.UserActivity(true)
		r.clock.Advance(speech)
		turn := runtime.Turn{Text: text, Duration: speech, Source: runtime.SourceTyped, Confidence: 1}
		if st.Confidence != nil {
			turn.Confidence, turn.Source = *st.Confidence, runtime.SourceMic
		}
		return r.c.SubmitTurn(ctx, turn)
	case st.Silence != nil:
		d := time.Duration(*st.Silence * float64(time.Second))
		r.advance(d)
		if r.c.Snapshot().State.Terminal() {
			return nil
		}
		return r.c.SubmitTurn(ctx, runtime.Turn{Duration: d, Source: runtime.SourceTyped})
	case st.Wait != nil:
		r.advance(time.Duration(*st.Wait * float64(time.Second)))
		return nil
	case st.Admin != nil:
		return r.c.Admin(ctx, runtime.AdminInstruction{Mode: runtime.AdminMode(st.Admin.Mode), Text: st.Admin.Text, Sender: st.Admin.Sender})
	case st.Control != nil:
		a, err := runtime.ParseControlAction(*st.Control)
		if err != nil {
			return err
		}
		return r.c.Control(ctx, a, "script")
	}
	return fmt.Errorf("empty step")
}

// spokeStreamed reports whether any reply was spoken while it streamed in.
func (r *parityRun) spokeStreamed() bool {
	for _, ev := range r.rec.Events() {
		if p, _ := ev.Decode(); p != nil {
			if s, ok := p.(*runtime.SpokenPayload); ok && s.Streamed {
				return true
			}
		}
	}
	return false
}

// examiner is the offline examiner, streaming when the run is.
func (r *parityRun) examiner() runtime.Examiner {
	if !r.streamed {
		return newOffline(r.t)
	}
	ex, err := offlineStreaming(8)
	if err != nil {
		r.t.Fatal(err)
	}
	return ex
}

// restart stops the live controller and carries on with one resumed from its log an hour
// later, as a new process would.
func (r *parityRun) restart() {
	t := r.t
	_ = r.c.Close()
	r.clock.Advance(time.Hour)
	c := r.newController(runtime.WithResume(r.rec.Events()))
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	r.c = c
	r.resumes++
}

// heardOfLastLine is the first three words of the examiner's last spoken line.
func (r *parityRun) heardOfLastLine() string {
	evs := r.rec.Events()
	for i := len(evs) - 1; i >= 0; i-- {
		if p, _ := evs[i].Decode(); p != nil {
			if s, ok := p.(*runtime.SpokenPayload); ok {
				w := strings.Fields(s.Text)
				return strings.Join(w[:min(3, len(w))], " ")
			}
		}
	}
	return ""
}

// advance ticks second by second, comparing after every tick that emitted events.
func (r *parityRun) advance(d time.Duration) {
	for d > 0 && !r.c.Snapshot().State.Terminal() {
		step := min(d, time.Second)
		r.clock.Advance(step)
		d -= step
		if err := r.c.Tick(r.t.Context()); err != nil {
			r.t.Fatal(err)
		}
		r.compare("tick")
	}
}

// compare resumes a new controller from the log so far and compares it with the live one, both
// read at the last event's time.
func (r *parityRun) compare(after string) {
	t := r.t
	t.Helper()
	events := r.rec.Events()
	if len(events) == r.seen {
		return
	}
	r.seen = len(events)
	last := events[len(events)-1]
	want, err := runtime.ParityState(r.c, last.Timestamp)
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := runtime.NewController(r.exam, r.examiner(), append([]runtime.Option{runtime.WithClock(runtime.NewVirtualClock(last.Timestamp)),
		runtime.WithResume(events)}, r.opts...)...)
	if err != nil {
		t.Fatalf("after %s: resume at seq %d: %v", after, last.Seq, err)
	}
	defer resumed.Close()
	got, err := runtime.ParityState(resumed, last.Timestamp)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("after %s (seq %d, %s): %s differs:\nresumed %+v\n   live %+v", after, last.Seq, last.Event, k, got[k], want[k])
		}
	}
	r.checks++
	r.nodes[fmt.Sprint(want["node.node"])] = true
}

// TestResumeAfterFailover: an exam that failed over to the fallback examiner resumes on the
// fallback, as the live run continued, and does not switch again.
func TestResumeAfterFailover(t *testing.T) {
	exam := compileTestExam(t, "basic.yaml", nil)
	failing := &scriptedExaminer{} // no replies: every call times out
	h := newHarness(t, exam, failing, runtime.WithExaminerFailover(newOffline(t), runtime.DefaultFailoverAfter))
	h.start()
	for range runtime.DefaultFailoverAfter {
		h.say("I would check the backups first.")
	}
	if got := h.c.ExaminerName(); got != "offline" {
		t.Fatalf("live examiner after %d failures: %s", runtime.DefaultFailoverAfter, got)
	}
	events := h.rec.Events()
	for _, fallback := range []bool{true, false} {
		opts := []runtime.Option{runtime.WithClock(runtime.NewVirtualClock(h.clock.Now())), runtime.WithResume(events)}
		want := "scripted" // without a fallback to switch to, the resumed exam runs the examiner it was given
		if fallback {
			opts, want = append(opts, runtime.WithExaminerFailover(newOffline(t), runtime.DefaultFailoverAfter)), "offline"
		}
		rec := &runtime.Recorder{}
		c, err := runtime.NewController(exam, &scriptedExaminer{}, append(opts, runtime.WithSink(runtime.NewFanout(rec)))...)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.ExaminerName(); got != want {
			t.Fatalf("fallback %v: resumed examiner %s, want %s", fallback, got, want)
		}
		if !fallback {
			continue
		}
		if err := c.Start(h.ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.SubmitTurn(h.ctx, runtime.Turn{Text: "Nothing has been tested, which is a risk."}); err != nil {
			t.Fatal(err)
		}
		if n := rec.Count(runtime.EventExaminerSwitched); n != 0 {
			t.Fatalf("the resumed exam switched again (%d examiner_switched)", n)
		}
		for _, ev := range rec.Events() {
			if p, _ := ev.Decode(); p != nil {
				if o, ok := p.(*runtime.ObservationPayload); ok && (o.Examiner != "offline" || !o.Valid) {
					t.Fatalf("resumed turn observed by %s (valid %v)", o.Examiner, o.Valid)
				}
			}
		}
	}
}

// TestResumeDecisionTrace is the resume path of the parity suite (cmd/examtui's TestParity
// runs the others): every candidate script, killed and resumed from its log after every step
// (parityRun.restart, as a new process would), makes the same decisions as the same script
// run without a break (runtime.DecisionTrace, compared line by line).
func TestResumeDecisionTrace(t *testing.T) {
	var scripts []*headless.Script
	for _, cs := range runtimetest.CandidateScripts(t, "..") {
		scripts = append(scripts, cs.Script)
	}
	decisions, resumes := 0, 0
	for _, s := range scripts {
		t.Run(filepath.Base(s.Name()), func(t *testing.T) {
			exam, err := s.CompileSpec()
			if err != nil {
				t.Fatal(err)
			}
			trace := func(resumeAfter []int) ([]string, int) {
				r := newParityRun(t, exam, false, s.ControllerOptions()...)
				r.resumeAfter = resumeAfter
				r.play(s.Turns)
				got, err := runtime.DecisionTrace(r.rec.Events())
				if err != nil {
					t.Fatal(err)
				}
				return got, r.resumes
			}
			want, _ := trace(nil)
			// The unbroken run is the reference's (`examtui test`, headless.Run): the harness
			// plays scripts as the product does.
			res, err := headless.Run(t.Context(), s, headless.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := runtime.DecisionTrace(res.Log)
			if err != nil {
				t.Fatal(err)
			}
			if d := runtime.TraceDiff(ref, want); d != "" {
				t.Fatalf("the unbroken run of %s differs from headless.Run:\n%s", s.Name(), d)
			}
			every := make([]int, len(s.Turns))
			for i := range every {
				every[i] = i + 1
			}
			got, n := trace(every)
			if n == 0 {
				t.Fatal("the exam was never resumed")
			}
			if d := runtime.TraceDiff(want, got); d != "" {
				t.Fatalf("resumed after every step, %s decides differently:\n%s", s.Name(), d)
			}
			decisions += len(got)
			resumes += n
		})
	}
	t.Logf("parity: resume after every step %d scripts / %d decisions (%d resumes)", len(scripts), decisions, resumes)
}

// TestResumeRestartPreamble: a process resumed from a log cut where it must first record what
// the dead one left (the candidate's turn during the examiner's call, not assessed; a settle
// whose admin_instruction event was lost) restarts its clocks at that first event, and a later
// replay of its log finds the restart there too: the downtime never counts, on a busy machine.
func TestResumeRestartPreamble(t *testing.T) {
	demo := runtimetest.DemoExam(t, nil)
	exam := contextVariant(demo)
	r := newParityRun(t, exam, false, runtime.WithContextBudget(4, 400))
	r.clock = &busyClock{VirtualClock: r.clock.(*runtime.VirtualClock), tick: time.Millisecond}
	r.c = r.newController(runtime.WithSessionID("parity"))
	r.play(contextWalk(demo)[:12])
	events := r.rec.Events()

	var openCall, lostSettle int // cuts: after a candidate's words, after a line that carried settles
	for i, ev := range events {
		switch p, _ := ev.Decode(); p := p.(type) {
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker == runtime.SpeakerCandidate && p.IsFinal && p.Text != "" && openCall == 0 && i > 20 {
				openCall = i + 1
			}
		case *runtime.SpokenPayload:
			if len(p.Settles) > 0 && lostSettle == 0 {
				lostSettle = i + 1
			}
		}
	}
	if openCall == 0 || lostSettle == 0 {
		t.Fatalf("no cut to make: after words %d, after a settle %d", openCall, lostSettle)
	}
	for _, tc := range []struct {
		name     string
		cut      int
		preamble func(runtime.Payload) bool
	}{
		{"open-call", openCall, func(p runtime.Payload) bool {
			rp, ok := p.(*runtime.RecoveryPayload)
			return ok && rp.Reason == runtime.NotAssessedRestarted
		}},
		{"lost-settle", lostSettle, func(p runtime.Payload) bool {
			ap, ok := p.(*runtime.AdminInstructionPayload)
			return ok && ap.AfterRestart
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &busyClock{VirtualClock: runtime.NewVirtualClock(events[tc.cut-1].Timestamp.Add(time.Hour)), tick: time.Millisecond}
			rec := &runtime.Recorder{}
			for _, ev := range events[:tc.cut] {
				rec.Deliver(ev)
			}
			c, err := runtime.NewController(exam, newOffline(t), runtime.WithClock(clock), runtime.WithSink(runtime.NewFanout(rec)),
				runtime.WithResume(events[:tc.cut]), runtime.WithContextBudget(4, 400))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			resumed := rec.Events()
			if first, _ := resumed[tc.cut].Decode(); !tc.preamble(first) {
				t.Fatalf("the resumed process opened with %s %s", resumed[tc.cut].Event, resumed[tc.cut].Payload)
			}
			clock.Advance(3 * time.Second)
			if err := c.Tick(t.Context()); err != nil {
				t.Fatal(err)
			}
			all := rec.Events()
			last := all[len(all)-1]
			want, err := runtime.ParityState(c, last.Timestamp)
			if err != nil {
				t.Fatal(err)
			}
			replayed, err := runtime.NewController(exam, newOffline(t), runtime.WithClock(runtime.NewVirtualClock(last.Timestamp)),
				runtime.WithResume(all), runtime.WithContextBudget(4, 400))
			if err != nil {
				t.Fatal(err)
			}
			defer replayed.Close()
			got, err := runtime.ParityState(replayed, last.Timestamp)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"examClock", "node.nodeClock"} {
				if !reflect.DeepEqual(got[k], want[k]) {
					t.Errorf("%s after the resumed process's %d events: replayed %+v, live %+v", k, len(all)-tc.cut, got[k], want[k])
				}
			}
		})
	}
}
