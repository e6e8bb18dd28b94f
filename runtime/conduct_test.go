package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/spec"
)

// The conduct fuzzer: random sequences of what happens in an exam — answers, commands, pauses
// and returns, silences past the check-in, clarifications, the supervisor's instructions
// (immediate, queued, said, promoted), controls, time limits, examiner failures and kills with
// a resume — run on the virtual clock against the demo exam and the offline examiner, and the
// properties of a fair exam checked after every step and on the whole log:
//   - every candidate segment with words is observed exactly once or recorded not_assessed
//     with its reason (runtimetest.CheckAssessedOnce);
//   - the question on the table is said again after a repeat, a clarification or a rephrasing;
//   - never two questions in one examiner turn (what one call of the controller says);
//   - no supervisor's guidance is said;
//   - an instruction's status matches what was said: consumed or applied when its line was
//     said, and its line never said otherwise — across a kill too, also one that lost the
//     settle events stored after the turn's lines (a kill with an odd argument);
//   - the decisions are the same with and without the kills (each kill resumes from the log);
//   - backchannels held over the examiner's line (Overheard) are recorded and change no
//     decision: the same with and without them.
// TestConductProperties runs a fixed budget of seeded sequences in `make test` (and the committed
// corpus runs as FuzzConduct's seeds); FuzzConduct is
// `go test -fuzz FuzzConduct ./runtime` (corpus: testdata/fuzz/FuzzConduct).

var (
	conductAnswers = []string{
		"We could open a second buffet line, or another way is a grab-and-go counter.",
		"Business travellers want speed and families want choice, so the guests differ.",
		"It would cost about two staff hours a day, which fits the budget.",
		"I think it is fine.",
		"My favourite football club won on Saturday.",
		"I'm Sam and I study hospitality management.",
	}
	conductCommands = []string{
		"Could you repeat the question please?", "Please slow down a bit.", "What do you mean by that?",
		"Could you rephrase that?", "Can we pause for a moment?", "Can we move on?", "I want to finish the exam now.",
		"Help, what am I supposed to do?", "Hmm, let me think.",
	}
	conductReturns  = []string{"I'm ready.", "Okay, let's go on.", "Yes, I'm sure.", "No, let's carry on."}
	conductGuidance = "seems tired"
)

// conductOps are the steps of a sequence; each takes one argument byte.
const (
	opAnswer = iota
	opCommand
	opClarify
	opReturn
	opSilenceWait
	opSilentTurn
	opImmediate
	opQueued
	opSay
	opPromote
	opControl
	opTimeLimit
	opFailExaminer
	opKill
	opInterim
	opBargeIn
	opBackchannel
	numConductOps
)

// flakyExaminer is the offline examiner failing the calls it is told to fail.
type flakyExaminer struct {
	inner runtime.Examiner
	mu    sync.Mutex
	fail  int
}

func (f *flakyExaminer) Name() string { return "flaky" }

func (f *flakyExaminer) Observe(ctx context.Context, req *runtime.ExaminerRequest) (*runtime.ExaminerReply, error) {
	f.mu.Lock()
	fail := f.fail > 0
	if fail {
		f.fail--
	}
	f.mu.Unlock()
	if fail {
		return nil, errors.New("examiner endpoint answered 500")
	}
	return f.inner.Observe(ctx, req)
}

// conductRun is one run of a sequence.
type conductRun struct {
	t       testing.TB
	exam    *spec.Exam
	clock   *runtime.VirtualClock
	ex      *flakyExaminer
	c       *runtime.Controller
	rec     *runtime.Recorder
	before  []runtime.Event // the log of the processes killed before this one
	kills   bool
	n       int // instruction counter: every instruction's text is unique
	breach  []string
	ctx     context.Context
	confirm bool
	// noOverheard leaves out the backchannels held over the examiner's line, which must change
	// no decision.
	noOverheard bool
}

func (r *conductRun) opts(extra ...runtime.Option) []runtime.Option {
	r.rec = &runtime.Recorder{}
	return append([]runtime.Option{runtime.WithClock(r.clock), runtime.WithSink(runtime.NewFanout(r.rec)),
		runtime.WithSessionID("conduct"), runtime.WithExaminerFailover(newOffline(r.t), runtime.DefaultFailoverAfter)}, extra...)
}

func (r *conductRun) log() []runtime.Event {
	return append(append([]runtime.Event(nil), r.before...), r.rec.Events()...)
}

func newConductRun(t testing.TB, confirm, kills bool) *conductRun {
	edit := func(s string) string { return s }
	if confirm {
		edit = func(s string) string {
			return strings.Replace(s, "  skipAllowed: true", "  skipAllowed: true\n  confirmFinish: true", 1)
		}
	}
	r := &conductRun{t: t, exam: runtimetest.DemoExam(t, edit), clock: runtime.NewVirtualClock(t0), kills: kills, ctx: context.Background(), confirm: confirm}
	r.ex = &flakyExaminer{inner: newOffline(t)}
	c, err := runtime.NewController(r.exam, r.ex, r.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	r.c = c
	if err := c.Start(r.ctx); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *conductRun) close() { _ = r.c.Close() }

// step runs one op and checks the per-step properties on what it emitted.
func (r *conductRun) step(op, arg byte) {
	c := r.c
	before := c.Snapshot()
	if before.State.Terminal() {
		return
	}
	n := len(r.rec.Events())
	var err error
	what := ""
	turn := func(text string) {
		r.clock.Advance(2 * time.Second)
		what = fmt.Sprintf("say %q", text)
		err = c.SubmitTurn(r.ctx, runtime.Turn{Text: text, Duration: time.Second})
	}
	wait := func(d, step time.Duration) {
		for d > 0 && err == nil {
			r.clock.Advance(step)
			d -= step
			m := len(r.rec.Events())
			err = c.Tick(r.ctx)
			r.checkCall(what, before, r.rec.Events()[m:])
		}
	}
	admin := func(mode runtime.AdminMode, text string) {
		what = fmt.Sprintf("%s %q", mode, text)
		err = c.Admin(r.ctx, runtime.AdminInstruction{Mode: mode, Text: text, Sender: "dr-lee"})
	}
	switch op % numConductOps {
	case opAnswer:
		turn(conductAnswers[int(arg)%len(conductAnswers)])
	case opCommand:
		turn(conductCommands[int(arg)%len(conductCommands)])
	case opClarify:
		turn("What do you mean by that?")
	case opReturn:
		turn(conductReturns[int(arg)%len(conductReturns)])
	case opSilenceWait:
		what = "silence"
		wait(time.Duration(15+int(arg)%30)*time.Second, time.Second)
		return
	case opSilentTurn:
		r.clock.Advance(10 * time.Second)
		what = "silent turn"
		err = c.SubmitTurn(r.ctx, runtime.Turn{Duration: 10 * time.Second})
	case opImmediate, opQueued:
		r.n++
		mode := runtime.AdminImmediate
		if op%numConductOps == opQueued {
			mode = runtime.AdminQueued
		}
		switch arg % 3 {
		case 0:
			admin(mode, fmt.Sprintf("Ask about the weekend cover for wing %d.", r.n))
		case 1:
			admin(mode, fmt.Sprintf("Tell the candidate that lift %d is out of order.", r.n))
		default:
			admin(mode, fmt.Sprintf("The candidate %s (note %d), keep it short.", conductGuidance, r.n))
		}
	case opSay:
		admin(runtime.AdminSay, "Just a moment, please.")
	case opPromote:
		what = "promote"
		err = c.PromoteQueued(r.ctx)
	case opControl:
		actions := []runtime.ControlAction{runtime.ControlPause, runtime.ControlResume, runtime.ControlAdvance, runtime.ControlSkip}
		a := actions[int(arg)%len(actions)]
		what = "control " + a.String()
		err = c.Control(r.ctx, a, "dr-lee")
	case opTimeLimit:
		what = "time passes"
		wait(time.Duration(60+int(arg)%240)*time.Second, 10*time.Second)
		return
	case opFailExaminer:
		r.ex.mu.Lock()
		r.ex.fail = 1 + int(arg)%3
		r.ex.mu.Unlock()
		return
	case opKill:
		if r.kills {
			r.kill(arg%2 == 1)
		}
		return
	case opInterim:
		what = "interim"
		err = c.Interim("We could", 0.8)
	case opBargeIn:
		// The candidate's voice cuts the line being said after a share of its words: none, a
		// quarter, half, three quarters or all. A share rather than a count, because a resumed
		// exam's line is its resume line (longer than the line it repeats): the same op must
		// cut both lines alike, or the runs with and without a kill hear different things.
		heard := ""
		if sp := runtimetest.Payloads[*runtime.SpokenPayload](r.t, r.rec.Events()); len(sp) > 0 {
			w := strings.Fields(sp[len(sp)-1].Text)
			heard = strings.Join(w[:len(w)*(int(arg)%5)/4], " ")
		}
		what = fmt.Sprintf("barge-in after %q", heard)
		err = c.SpeechInterrupted(heard)
	case opBackchannel:
		text := []string{"Mm-hmm.", "Yeah.", "", "Okay, right."}[int(arg)%4]
		if arg%8 < 4 {
			turn(text) // after a barge-in: a false cut, or the candidate's turn
			break
		}
		// Held over the examiner's line by the voice path: overheard, no turn.
		if r.noOverheard {
			return
		}
		what = fmt.Sprintf("overheard %q", text)
		err = c.Overheard(r.ctx, runtime.Turn{Text: text, Duration: 500 * time.Millisecond, Source: runtime.SourceMic},
			runtime.NotAssessedBackchannel, "held over the examiner's line")
	}
	switch {
	case err == nil, errors.Is(err, runtime.ErrPaused), errors.Is(err, runtime.ErrExamOver), errors.Is(err, runtime.ErrNothingQueued),
		errors.Is(err, runtime.ErrInvalidTransition), errors.Is(err, runtime.ErrNotStarted):
	default:
		r.t.Fatalf("%s: %v", what, err)
	}
	r.checkCall(what, before, r.rec.Events()[n:])
}

// kill stops the process and resumes the exam from its log in a new controller. A restart
// keeps the time since the log's last event off the exam's clocks (by design: the candidate is
// not charged for the downtime), which moves deadlines; so that decisions can be compared with
// the run without kills, a kill happens only right after an event, when no time has passed.
// With beforeSettle the process dies after the lines of a turn and before the admin_instruction
// events that settle the queued instructions those lines carried (the log loses them): the
// resumed exam must still hold them settled as said.
func (r *conductRun) kill(beforeSettle bool) {
	log := r.log()
	if len(log) == 0 || !log[len(log)-1].Timestamp.Equal(r.clock.Now()) {
		return
	}
	if beforeSettle {
		log = dropTrailingSettles(log)
	}
	_ = r.c.Close()
	r.before = log
	c, err := runtime.NewController(r.exam, r.ex, r.opts(runtime.WithResume(log))...)
	if err != nil {
		r.t.Fatalf("resume after %d events: %v", len(log), err)
	}
	r.c = c
	if err := c.Start(r.ctx); err != nil && !errors.Is(err, runtime.ErrExamOver) {
		r.t.Fatalf("start the resumed exam: %v", err)
	}
}

// dropTrailingSettles is log without the queued instructions' settle events at its end.
func dropTrailingSettles(log []runtime.Event) []runtime.Event {
	n := len(log)
	for n > 0 {
		p, _ := log[n-1].Decode()
		a, ok := p.(*runtime.AdminInstructionPayload)
		if !ok || a.Mode != runtime.AdminQueued || a.Status == runtime.AdminReceived {
			break
		}
		n--
	}
	return log[:n]
}

// checkCall checks what one call of the controller said: at most one question; the question on
// the table again after a repeat, clarification or rephrasing; no supervisor's guidance.
func (r *conductRun) checkCall(what string, before runtime.Snapshot, evs []runtime.Event) {
	question, prompt := before.LastQuestion, ""
	if n := r.exam.Node(before.NodeID); n != nil {
		ss := runtime.SplitSentences(n.Controller.ConversationPrompt)
		if len(ss) > 0 {
			prompt = ss[len(ss)-1]
		}
	}
	var said []string
	again, moved := false, false
	for _, ev := range evs {
		p, err := ev.Decode()
		if err != nil {
			r.t.Fatal(err)
		}
		switch p := p.(type) {
		case *runtime.SpokenPayload:
			said = append(said, p.Text)
		case *runtime.CommandAcknowledgedPayload:
			switch runtime.Command(p.Command) {
			case runtime.CmdRepeat, runtime.CmdClarification, runtime.CmdRequestRephrase:
				again = true
			}
		case *runtime.NodeEnteredPayload, *runtime.ExamStatePayload:
			moved = true
		}
	}
	all := strings.Join(said, " ")
	questions := 0
	for _, s := range runtime.SplitSentences(all) {
		if strings.HasSuffix(s, "?") {
			questions++
		}
	}
	if questions > 1 {
		r.breach = append(r.breach, fmt.Sprintf("%s: %d questions in one examiner turn: %q", what, questions, said))
	}
	// The question on the table, or the node's own (a filter may bring a supervisor's question
	// back to the node's).
	if again && !moved && question != "" && !strings.Contains(all, question) && (prompt == "" || !strings.Contains(all, prompt)) {
		r.breach = append(r.breach, fmt.Sprintf("%s: the question %q was not said again: %q", what, question, said))
	}
	if strings.Contains(strings.ToLower(all), conductGuidance) {
		r.breach = append(r.breach, fmt.Sprintf("%s: the supervisor's guidance was said: %q", what, said))
	}
}

// checkLog checks the whole log: the invariant, and instruction statuses against what was said.
func (r *conductRun) checkLog() {
	log := r.log()
	if err := runtimetest.CheckAssessedOnce(log); err != nil {
		r.breach = append(r.breach, err.Error())
	}
	type instr struct {
		line    string
		settled bool
		from    int
	}
	instrs := map[string]*instr{}
	var spoken []struct {
		at   int
		text string
	}
	for i, ev := range log {
		p, _ := ev.Decode()
		switch p := p.(type) {
		case *runtime.AdminInstructionPayload:
			if p.Mode == runtime.AdminControl || p.Mode == runtime.AdminSay {
				continue
			}
			in := instrs[p.Text]
			if in == nil {
				line, _ := runtime.CandidateLine(p.Text)
				in = &instr{line: line, from: i}
				instrs[p.Text] = in
			}
			if p.Status == runtime.AdminConsumed || p.Status == runtime.AdminApplied {
				in.settled = true
			}
		case *runtime.SpokenPayload:
			spoken = append(spoken, struct {
				at   int
				text string
			}{i, p.Text})
		}
	}
	for text, in := range instrs {
		if in.line == "" {
			continue
		}
		said := false
		for _, s := range spoken {
			if s.at > in.from && strings.Contains(s.text, strings.TrimSuffix(in.line, "?")) {
				said = true
			}
		}
		if said != in.settled {
			r.breach = append(r.breach, fmt.Sprintf("instruction %q: consumed or applied %t, its line said %t", text, in.settled, said))
		}
	}
}

// runConduct runs ops and returns the decision trace and every breach of a property.
func runConduct(t testing.TB, ops []byte, kills, noOverheard bool) ([]string, []string) {
	confirm := len(ops) > 0 && ops[0]%2 == 1
	r := newConductRun(t, confirm, kills)
	r.noOverheard = noOverheard
	defer func() { r.close() }()
	for i := 0; i+1 < len(ops) && i < 2*maxConductSteps; i += 2 {
		r.step(ops[i], ops[i+1])
	}
	r.checkLog()
	trace, err := runtime.DecisionTrace(r.log())
	if err != nil {
		t.Fatal(err)
	}
	return trace, r.breach
}

// maxConductSteps bounds one sequence.
const maxConductSteps = 60

func checkConduct(t *testing.T, ops []byte) {
	t.Helper()
	plain, breach := runConduct(t, ops, false, false)
	killed, kbreach := runConduct(t, ops, true, false)
	unheard, ubreach := runConduct(t, ops, false, true)
	for _, b := range slices.Concat(breach, kbreach, ubreach) {
		t.Error(b)
	}
	if d := runtime.TraceDiff(plain, killed); d != "" {
		t.Errorf("decisions differ across a kill and resume:\n%s", d)
	}
	if d := runtime.TraceDiff(unheard, plain); d != "" {
		t.Errorf("backchannels held over the examiner's line changed a decision:\n%s", d)
	}
	if t.Failed() {
		t.Logf("ops: %s", describeOps(ops))
	}
}

func describeOps(ops []byte) string {
	names := []string{"answer", "command", "clarify", "return", "silence", "silent-turn", "immediate", "queued", "say", "promote", "control", "time", "fail", "kill", "interim", "barge-in", "backchannel"}
	var b strings.Builder
	for i := 0; i+1 < len(ops) && i < 2*maxConductSteps; i += 2 {
		fmt.Fprintf(&b, "%s(%d) ", names[ops[i]%numConductOps], ops[i+1])
	}
	return b.String()
}

// conductSeeds are the cases the issue reported, as op sequences, then seeded random ones.
func conductSeeds() [][]byte {
	b := func(ops ...int) []byte {
		out := make([]byte, len(ops))
		for i, o := range ops {
			out[i] = byte(o)
		}
		return out
	}
	return [][]byte{
		// An answer that ends a pause is observed.
		b(opAnswer, 5, opCommand, 4, opAnswer, 0, opAnswer, 1),
		// A clarification after a silence check-in comes back to the node's question.
		b(opAnswer, 5, opSilenceWait, 15, opClarify, 0, opSilenceWait, 20, opCommand, 0),
		// The candidate's explicit command wins (repeat, slow down) — and kills in between.
		b(opAnswer, 5, opCommand, 0, opKill, 0, opCommand, 1, opAnswer, 0),
		// A queued instruction when a limit moves the exam on before it is said.
		b(opAnswer, 5, opQueued, 0, opAnswer, 3, opAnswer, 3, opAnswer, 3, opAnswer, 3),
		// Promotion between turns; a chain of promoted instructions asks one question at a time.
		b(opAnswer, 5, opQueued, 0, opQueued, 0, opQueued, 1, opImmediate, 1, opAnswer, 0, opPromote, 0, opAnswer, 1),
		// Examiner failures, failover and a kill.
		b(opAnswer, 5, opFailExaminer, 2, opAnswer, 0, opAnswer, 1, opKill, 0, opAnswer, 2, opFailExaminer, 0, opCommand, 2),
		// Finish confirmation answered with an answer (confirmFinish on: first byte odd).
		b(opCommand+numConductOps, 5, opCommand, 6, opAnswer, 0, opCommand, 6, opReturn, 2),
		// An examiner's pause refuses the candidate's words, which are still recorded.
		b(opAnswer, 5, opControl, 0, opAnswer, 0, opControl, 1, opAnswer, 1),
		// Partial transcripts before a kill.
		b(opAnswer, 5, opInterim, 0, opKill, 0, opAnswer, 0, opInterim, 0, opAnswer, 1),
		// A queued instruction said in a reply, and a kill after the reply's lines and before
		// the instruction's settle was stored.
		b(opAnswer, 5, opQueued, 1, opAnswer, 0, opKill, 1, opAnswer, 1, opAnswer, 2),
		b(opAnswer, 5, opAnswer, 0, opQueued, 0, opAnswer, 1, opKill, 1, opAnswer, 2, opAnswer, 3),
		// A backchannel over the examiner's line (a false cut), a kill, a real interruption.
		b(opAnswer, 5, opAnswer, 3, opBargeIn, 3, opBackchannel, 0, opKill, 0, opBargeIn, 5, opCommand, 0, opBargeIn, 1, opBackchannel, 2),
		// Backchannels held over the examiner's line (overheard): recorded, and nothing else
		// changes — a cut stands, a finish confirmation still waits, a kill keeps them.
		b(opAnswer, 5, opBackchannel, 4, opAnswer, 0, opBargeIn, 3, opBackchannel, 5, opKill, 0, opBackchannel, 0, opAnswer, 1),
		b(opCommand+numConductOps, 5, opCommand, 6, opBackchannel, 7, opKill, 0, opBackchannel, 4, opReturn, 2),
	}
}

// TestConductProperties runs the cases and a fixed budget of seeded random sequences.
func TestConductProperties(t *testing.T) {
	seeds := conductSeeds()
	rng := rand.New(rand.NewPCG(37, 2026))
	budget := 100
	if testing.Short() {
		budget = 20
	}
	for range budget {
		ops := make([]byte, 2*(10+rng.IntN(30)))
		for i := range ops {
			ops[i] = byte(rng.UintN(256))
		}
		ops[0], ops[1] = opAnswer, 5 // past the welcome first
		seeds = append(seeds, ops)
	}
	for i, ops := range seeds {
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkConduct(t, ops) })
	}
}

func FuzzConduct(f *testing.F) {
	for _, s := range conductSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ops []byte) { checkConduct(t, ops) })
}
