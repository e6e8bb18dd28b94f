package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/offline"
	"github.com/examtui/examtui/spec"
)

// Defaults of a scripted run.
var (
	// DefaultStart is a fixed start for reproducible runs: tests pin the clock with it
	// (Options.Start, or a script's start: field). Unpinned runs start at the real time.
	DefaultStart = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	// DefaultTurnGap is the virtual time the candidate takes before speaking.
	DefaultTurnGap = 2 * time.Second
)

// Options configure a scripted run.
type Options struct {
	// NewExaminer builds the examiner a script names ("offline" or "llm") with the controller
	// options that belong to it: its failover, as a live exam of that examiner has it
	// (`examtui test` gives app.BuildExaminer). Nil: offline only.
	NewExaminer func(kind string) (runtime.Examiner, []runtime.Option, error)
	// Sink, when set, receives every event before the run's own recorder (e.g. a session store).
	Sink runtime.Sink
	// Logger for the controller (default: discard).
	Logger *slog.Logger
	// Start is the virtual clock's start. Default: the script's start: field when it pins
	// one, else the real time when the run begins (see StartFor).
	Start time.Time
	// TurnGap is the virtual pause before each spoken turn (default DefaultTurnGap).
	TurnGap time.Duration
	// SessionID names the run's session (default derived from the script name).
	SessionID string
	// ControllerOptions are passed on to runtime.NewController.
	ControllerOptions []runtime.Option
	// Speak, when set, turns each say step into the turn the controller receives through a
	// real voice path (`examtui test --audio` synthesises the text and runs it through VAD,
	// endpointing and STT): the returned turn's Text is what was heard, its Duration the
	// speech's length on the virtual clock. A step's confidence caps the heard one.
	Speak func(ctx context.Context, s *Script, say string) (runtime.Turn, error)
}

// Said lists the text of every say step, in order (a fixed-grammar recogniser needs them).
func (s *Script) Said() []string {
	var out []string
	for _, t := range s.Turns {
		for _, line := range []*string{t.Say, t.Interrupt} {
			if line != nil {
				out = append(out, SpokenText(*line))
			}
		}
	}
	return out
}

// defaultExaminer builds the offline examiner; "llm" needs Options.NewExaminer.
func defaultExaminer(kind string) (runtime.Examiner, []runtime.Option, error) {
	if kind == "offline" {
		ex, err := offline.New()
		return ex, nil, err
	}
	return nil, nil, fmt.Errorf("%w: %q (this build only wires the offline examiner)", ErrExaminerKind, kind)
}

// CompileSpec compiles the script's spec (from the script's file system).
func (s *Script) CompileSpec() (*spec.Exam, error) {
	src, err := s.readSpec()
	if err != nil {
		return nil, err
	}
	exam, diags, err := spec.Compile(s.specPath, src)
	if err != nil {
		var b strings.Builder
		for _, d := range diags.Errors() {
			b.WriteString("\n  " + d.String())
		}
		return nil, fmt.Errorf("%w %s: %w%s", ErrSpec, s.specPath, err, b.String())
	}
	return exam, nil
}

// StartFor is where a run of s starts its virtual clock: start when given, else the time the
// script pins, else now (to the millisecond). A caller that records the run as a session uses
// it for the session's start, so both agree.
func StartFor(s *Script, start time.Time) time.Time {
	switch {
	case !start.IsZero():
		return start
	case s != nil && !s.startAt.IsZero():
		return s.startAt
	}
	return time.Now().UTC().Truncate(time.Millisecond)
}

// Run plays the script against its exam on a virtual clock and checks its expectations. The
// error is for a run that could not happen (bad spec, unknown examiner, a failing sink); unmet
// expectations are reported in the Result.
func Run(ctx context.Context, s *Script, opts Options) (*Result, error) {
	wallStart := time.Now()
	exam, err := s.CompileSpec()
	if err != nil {
		return nil, err
	}
	if probs := s.checkAgainst(exam); len(probs) > 0 {
		return nil, fmt.Errorf("%w:\n  %s", ErrExpectationSet, strings.Join(probs, "\n  "))
	}
	newEx := opts.NewExaminer
	if newEx == nil {
		newEx = defaultExaminer
	}
	ex, exOpts, err := newEx(s.Examiner)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	start := StartFor(s, opts.Start)
	gap := opts.TurnGap
	if gap <= 0 {
		gap = DefaultTurnGap
	}
	sid := opts.SessionID
	if sid == "" {
		sid = "script-" + strings.TrimSuffix(pathBase(s.name), ".yaml")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	clock := runtime.NewVirtualClock(start)
	rec := &runtime.Recorder{}
	fan := runtime.NewFanout(rec)
	if opts.Sink != nil {
		fan.Chain(opts.Sink)
	}
	copts := append([]runtime.Option{runtime.WithClock(clock), runtime.WithSink(fan), runtime.WithSessionID(sid),
		runtime.WithLogger(logger)}, append(exOpts, opts.ControllerOptions...)...)
	copts = append(copts, s.ControllerOptions()...)
	c, err := runtime.NewController(exam, ex, copts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("%s: start: %w", s.name, err)
	}
	res := &Result{Script: s.name, Spec: s.specPath, Examiner: ex.Name(), SessionID: sid}
	for i, t := range s.Turns {
		if c.Snapshot().State.Terminal() {
			res.TurnsSkipped = len(s.Turns) - i
			break
		}
		if err := s.play(ctx, c, clock, t, gap, opts.Speak); err != nil {
			if errors.Is(err, runtime.ErrExamOver) {
				res.TurnsSkipped = len(s.Turns) - i
				break
			}
			if errors.Is(err, runtime.ErrSink) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, fmt.Errorf("%s: turn %d: %w", s.name, i+1, err)
			}
			res.StepErrors = append(res.StepErrors, fmt.Sprintf("turn %d (%s): %v", i+1, t.Kind(), err))
		}
		res.TurnsRun++
	}
	res.collect(rec.Events(), c.Snapshot())
	res.check(s.Expect)
	res.WallTime = time.Since(wallStart)
	return res, nil
}

// play performs one step on the virtual clock.
func (s *Script) play(ctx context.Context, c *runtime.Controller, clock *runtime.VirtualClock, t TurnStep, gap time.Duration,
	speak func(context.Context, *Script, string) (runtime.Turn, error)) error {
	switch {
	case t.Interrupt != nil:
		t.Say, t.Interrupt = t.Interrupt, nil // on the virtual clock an interruption is an ordinary turn
		return s.play(ctx, c, clock, t, gap, speak)
	case t.Say != nil && speak != nil:
		if err := advance(ctx, c, clock, gap); err != nil {
			return err
		}
		turn, err := speak(ctx, s, SpokenText(*t.Say))
		if err != nil {
			return err
		}
		c.UserActivity(true)
		clock.Advance(turn.Duration)
		turn.StartedAt = time.Time{} // on the virtual clock: now - Duration
		turn.Confidence = t.HeardConfidence(turn.Confidence)
		return c.SubmitTurn(ctx, turn)
	case t.Say != nil:
		if err := advance(ctx, c, clock, gap); err != nil {
			return err
		}
		text := SpokenText(*t.Say)
		words := len(strings.Fields(text))
		speech := time.Duration(float64(words)/2.5*float64(time.Second)) + 500*time.Millisecond + Pauses(*t.Say)
		c.UserActivity(true)
		clock.Advance(speech)
		turn := runtime.Turn{Text: text, Duration: speech, Source: runtime.SourceTyped, Confidence: 1}
		if t.Confidence != nil {
			turn.Confidence = *t.Confidence
			turn.Source = runtime.SourceMic
		}
		return c.SubmitTurn(ctx, turn)
	case t.Silence != nil:
		d := seconds(*t.Silence)
		if err := advance(ctx, c, clock, d); err != nil {
			return err
		}
		if c.Snapshot().State.Terminal() {
			return nil
		}
		return c.SubmitTurn(ctx, runtime.Turn{Duration: d, Source: runtime.SourceTyped})
	case t.Wait != nil:
		return advance(ctx, c, clock, seconds(*t.Wait))
	case t.Admin != nil:
		return c.Admin(ctx, runtime.AdminInstruction{Mode: runtime.AdminMode(t.Admin.Mode), Text: t.Admin.Text, Sender: t.Admin.Sender})
	case t.Control != nil:
		a, err := runtime.ParseControlAction(*t.Control)
		if err != nil {
			return err
		}
		return c.Control(ctx, a, "script")
	}
	return nil
}

// advance moves the virtual clock by d in one-second ticks, so warnings, budgets and beats
// happen at the second they are due.
func advance(ctx context.Context, c *runtime.Controller, clock *runtime.VirtualClock, d time.Duration) error {
	for d > 0 {
		step := min(d, time.Second)
		clock.Advance(step)
		d -= step
		if err := c.Tick(ctx); err != nil {
			return err
		}
		if c.Snapshot().State.Terminal() {
			return nil
		}
	}
	return nil
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

func pathBase(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// checkAgainst reports expectations naming signals or nodes the exam does not have.
func (s *Script) checkAgainst(exam *spec.Exam) []string {
	var probs []string
	for _, k := range slices.Sorted(maps.Keys(s.Expect.Evidence)) {
		if exam.Signal(k) == nil {
			probs = append(probs, fmt.Sprintf("%s: expect.evidence: %q is not a signal of exam %s", s.pos("$.expect.evidence."+k), k, exam.ID))
		}
	}
	if s.Expect.Visits != nil {
		for i, v := range *s.Expect.Visits {
			if exam.Node(v) == nil {
				probs = append(probs, fmt.Sprintf("%s: expect.visits: %q is not a node of exam %s", s.pos(fmt.Sprintf("$.expect.visits[%d]", i)), v, exam.ID))
			}
		}
	}
	for _, field := range []struct {
		name string
		m    map[string]string
	}{{"variants", s.Variants}, {"expect.variants", s.Expect.Variants}} {
		for _, k := range slices.Sorted(maps.Keys(field.m)) {
			at := s.pos("$." + field.name + "." + k)
			switch n := exam.Node(k); {
			case n == nil:
				probs = append(probs, fmt.Sprintf("%s: %s: %q is not a node of exam %s", at, field.name, k, exam.ID))
			case !slices.Contains(n.VariantIDs(), field.m[k]):
				probs = append(probs, fmt.Sprintf("%s: %s: node %q has no variant %q (%s)", at, field.name, k, field.m[k],
					spec.Hint(field.m[k], "variants", n.VariantIDs())))
			}
		}
	}
	return probs
}
