package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/internal/app"
	"github.com/examtui/examtui/runtime"
)

// Exit statuses of a headless run besides 0 (the exam completed) and 1 (an error).
const (
	exitHeadlessEnded       = 2   // the exam ended without completing (aborted, expired)
	exitHeadlessInterrupted = 130 // SIGINT/SIGTERM: the session is kept, resumable
)

// eofPollInterval is how often a run whose stdin ended checks whether it can still end.
const eofPollInterval = 100 * time.Millisecond

// drainTimeout bounds how long a closing run waits for committed events to reach stdout.
const drainTimeout = 10 * time.Second

// headlessHelp lists the operator commands a headless run reads from stdin.
const headlessHelp = `stdin: one candidate answer per line; lines starting with "/" are operator commands:
  /pause  /resume  /skip  /advance  /end
  /admin TEXT   immediate examiner instruction
  /queue TEXT   queued examiner instruction (used at the next turn)
  /promote      run the oldest queued instruction now, as an immediate one
  //TEXT        an answer that starts with "/"`

// headlessLine is one parsed stdin line: an answer, a control action or an admin instruction.
type headlessLine struct {
	kind   headlessKind
	text   string // the answer or the instruction
	action string // control action
}

type headlessKind int

const (
	lineNone   headlessKind = iota // blank: nothing to do
	lineAnswer                     // candidate answer
	lineControl
	lineAdmin
)

func (k headlessKind) String() string {
	switch k {
	case lineNone:
		return "none"
	case lineAnswer:
		return "answer"
	case lineControl:
		return "control"
	case lineAdmin:
		return "admin"
	}
	return fmt.Sprintf("headlessKind(%d)", int(k))
}

// errHeadlessCommand reports an operator line the headless run does not understand.
var errHeadlessCommand = errors.New("unknown operator command")

// parseHeadlessLine reads one stdin line.
func parseHeadlessLine(line string) (headlessLine, error) {
	s := strings.TrimSpace(line)
	switch {
	case s == "":
		return headlessLine{kind: lineNone}, nil
	case strings.HasPrefix(s, "//"):
		return headlessLine{kind: lineAnswer, text: s[1:]}, nil
	case !strings.HasPrefix(s, "/"):
		return headlessLine{kind: lineAnswer, text: s}, nil
	}
	name, arg, _ := strings.Cut(s[1:], " ")
	arg = strings.TrimSpace(arg)
	switch strings.ToLower(name) {
	case "pause", "resume", "skip", "advance", "end":
		if arg != "" {
			return headlessLine{}, fmt.Errorf("%w: /%s takes no argument", errHeadlessCommand, name)
		}
		return headlessLine{kind: lineControl, action: strings.ToLower(name)}, nil
	case "promote":
		if arg != "" {
			return headlessLine{}, fmt.Errorf("%w: /%s takes no argument", errHeadlessCommand, name)
		}
		return headlessLine{kind: lineAdmin, action: "promote"}, nil
	case "admin", "queue":
		if arg == "" {
			return headlessLine{}, fmt.Errorf("%w: /%s needs the instruction's text", errHeadlessCommand, name)
		}
		mode := string(runtime.AdminImmediate)
		if strings.EqualFold(name, "queue") {
			mode = string(runtime.AdminQueued)
		}
		return headlessLine{kind: lineAdmin, action: mode, text: arg}, nil
	}
	return headlessLine{}, fmt.Errorf("%w: %q", errHeadlessCommand, "/"+name)
}

// runHeadless runs a local exam with no console: answers and operator commands from stdin,
// every event on stdout once it is committed. At the end of stdin it waits for the exam to
// complete (or its time budget to expire), unless the exam is paused (nothing could resume
// it); SIGINT/SIGTERM close the session cleanly, leaving it interrupted and resumable.
func runHeadless(cmd *cobra.Command, specPath string, o runOptions) error {
	ctx := cmd.Context()
	dataDir, log, closeLog, err := setup()
	if err != nil {
		return err
	}
	defer closeLog()

	x, err := openExam(ctx, specPath, o, runtime.SourceTyped, dataDir, log)
	if err != nil {
		return err
	}
	defer x.Close()
	h := &headlessRun{x: x, log: log, errw: cmd.ErrOrStderr(),
		printer: newEventPrinter(cmd.OutOrStdout(), o.jsonOut)}
	return h.run(ctx, cmd.InOrStdin())
}

type headlessRun struct {
	x       *app.Exam
	log     *slog.Logger
	errw    io.Writer
	printer *eventPrinter
}

func (h *headlessRun) run(ctx context.Context, stdin io.Reader) error {
	x := h.x
	printed := make(chan error, 1)
	go func() { printed <- h.printer.run(x.Events()) }()

	if err := x.Start(ctx); err != nil {
		h.closeExam()
		<-printed
		return fmt.Errorf("start exam: %w", err)
	}
	h.log.Info("headless exam started", "session", x.SessionID, "exam", x.Spec.ID, "examiner", x.Examiner,
		"resumed_at_seq", x.Controller.Snapshot().Seq)

	// A blocked read of stdin cannot be cancelled; the reader ends with the process (or at EOF).
	lines := make(chan inputLine)
	go func() {
		defer close(lines)
		err := readLines(stdin, maxInputLine, func(l inputLine) bool {
			select {
			case lines <- l:
				return true
			case <-h.printer.ended:
				return false
			}
		})
		if err != nil {
			h.log.Warn("headless: reading stdin", "err", err)
		}
	}()

	var (
		runErr      error
		interrupted bool
		eofCheck    <-chan time.Time // after EOF: a paused exam can never resume, so stop
		storeFailed <-chan struct{}  // the journal could not commit: stop, nothing more can be shown
	)
	if x.Journal != nil {
		storeFailed = x.Journal.Failed()
	}
loop:
	for {
		select {
		case <-ctx.Done():
			interrupted = true
			break loop
		case <-storeFailed:
			runErr = fmt.Errorf("session store: %w", x.Journal.Err())
			break loop
		case <-h.printer.ended:
			break loop
		case <-h.printer.failed:
			// stdout is gone: nobody sees the events any more, so stop like an interrupt.
			interrupted = true
			break loop
		case <-eofCheck:
			if x.Controller.Snapshot().State == runtime.StatePaused {
				h.log.Info("headless: end of stdin while the exam is paused; stopping")
				fmt.Fprintln(h.errw, "examtui: end of input while the exam is paused")
				interrupted = true
				break loop
			}
		case line, ok := <-lines:
			if !ok {
				lines = nil // EOF: wait for the exam to end
				h.log.Info("headless: end of stdin; waiting for the exam to end")
				t := time.NewTicker(eofPollInterval)
				defer t.Stop()
				eofCheck = t.C
				continue
			}
			if line.tooLong > 0 {
				// Rejected, not fatal: the exam goes on with the next line.
				h.log.Warn("headless: input line too long; ignored", "bytes", line.tooLong, "max", maxInputLine)
				fmt.Fprintf(h.errw, "examtui: input line of %d bytes ignored (the longest accepted is %d bytes)\n", line.tooLong, maxInputLine)
				continue
			}
			if err := h.dispatch(ctx, line.text); err != nil {
				if ctx.Err() != nil {
					interrupted = true
					break loop
				}
				runErr = err
				break loop
			}
		}
	}

	h.drain()
	closeErr := h.closeExam()
	if err := <-printed; err != nil && runErr == nil {
		runErr = err
	}
	if runErr == nil {
		runErr = closeErr
	}
	if runErr != nil {
		return runErr
	}
	snap := x.Controller.Snapshot()
	switch {
	case interrupted || !snap.State.Terminal():
		return &exitError{code: exitHeadlessInterrupted, msg: fmt.Sprintf(
			"interrupted: session %s kept at seq %d (continue with: examtui run --resume %s --headless)",
			x.SessionID, snap.Seq, x.SessionID)}
	case snap.State != runtime.StateCompleted:
		return &exitError{code: exitHeadlessEnded, msg: fmt.Sprintf("session %s ended %s", x.SessionID, snap.State)}
	}
	fmt.Fprintf(h.errw, "session %s completed (%d events)\n", x.SessionID, snap.Seq)
	return nil
}

// dispatch applies one stdin line. Refusals (a turn while paused, /resume while running) are
// reported on stderr and the run goes on; only a failing event sink stops it.
func (h *headlessRun) dispatch(ctx context.Context, line string) error {
	in, err := parseHeadlessLine(line)
	if err != nil {
		fmt.Fprintf(h.errw, "examtui: %v\n%s\n", err, headlessHelp)
		return nil
	}
	x := h.x
	switch in.kind {
	case lineNone:
		return nil
	case lineAnswer:
		err = x.Controller.SubmitTurn(ctx, runtime.Turn{Text: in.text, Source: runtime.SourceTyped})
	case lineControl:
		var a runtime.ControlAction
		if a, err = runtime.ParseControlAction(in.action); err == nil {
			err = x.Control(a)
		}
	case lineAdmin:
		if in.action == "promote" {
			err = x.Controller.PromoteQueued(ctx)
			break
		}
		err = x.Admin(runtime.AdminMode(in.action), in.text)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, runtime.ErrSink), errors.Is(err, runtime.ErrClosed):
		return err
	case ctx.Err() != nil:
		return ctx.Err()
	}
	h.log.Warn("headless: line refused", "kind", in.kind, "err", err)
	fmt.Fprintf(h.errw, "examtui: %s refused: %v\n", in.kind, err)
	return nil
}

// drain waits until every event the controller emitted is committed and printed, so a run
// that ends (or is interrupted) shows everything it stored.
func (h *headlessRun) drain() {
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if h.x.Journal != nil {
		if err := h.x.Journal.Flush(ctx); err != nil {
			h.log.Warn("headless: flush journal", "err", err)
			return
		}
	}
	target := h.x.Controller.Snapshot().Seq
	if err := h.printer.waitFor(ctx, target); err != nil {
		h.log.Warn("headless: not every event was printed", "target", target, "err", err)
	}
}

func (h *headlessRun) closeExam() error {
	err := h.x.Close()
	if err != nil {
		h.log.Error("headless: close", "err", err)
	}
	return err
}

// eventPrinter writes each event to stdout as it arrives from the committed stream, with one
// write per line, so what a reader of stdout has seen is always in the store.
type eventPrinter struct {
	w      io.Writer
	asJSON bool

	mu      sync.Mutex
	printed int64
	changed chan struct{}
	ended   chan struct{} // closed once exam_completed is printed
	failed  chan struct{} // closed at the first write error
}

func newEventPrinter(w io.Writer, asJSON bool) *eventPrinter {
	return &eventPrinter{w: w, asJSON: asJSON, changed: make(chan struct{}), ended: make(chan struct{}),
		failed: make(chan struct{})}
}

// run prints until events closes; after a write error it keeps draining (so the journal's
// subscriber never stalls) and returns the error.
func (p *eventPrinter) run(events <-chan runtime.Event) error {
	var werr error
	var line []byte
	for ev := range events {
		if werr == nil {
			var err error
			if line, err = formatEvent(line[:0], ev, p.asJSON); err == nil {
				_, err = p.w.Write(line)
			}
			if err != nil {
				werr = fmt.Errorf("print seq %d: %w", ev.Seq, err)
				close(p.failed)
			}
		}
		p.mu.Lock()
		p.printed = ev.Seq
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
		if ev.Event == runtime.EventExamCompleted {
			select {
			case <-p.ended:
			default:
				close(p.ended)
			}
		}
	}
	return werr
}

func (p *eventPrinter) waitFor(ctx context.Context, seq int64) error {
	for {
		p.mu.Lock()
		printed, changed := p.printed, p.changed
		p.mu.Unlock()
		if printed >= seq {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("printed up to seq %d of %d: %w", printed, seq, ctx.Err())
		}
	}
}

// formatEvent appends ev as one line: the JSON envelope, or a readable summary.
func formatEvent(b []byte, ev runtime.Event, asJSON bool) ([]byte, error) {
	if asJSON {
		data, err := json.Marshal(ev)
		if err != nil {
			return b, fmt.Errorf("encode seq %d: %w", ev.Seq, err)
		}
		return append(append(b, data...), '\n'), nil
	}
	b = fmt.Appendf(b, "%4d %s %-20s %s\n", ev.Seq, ev.Timestamp.Local().Format("15:04:05.000"), ev.Event, describeEvent(ev))
	return b, nil
}

// describeEvent is the readable part of a headless line: what a person watching needs, the
// full payload being one --json away.
func describeEvent(ev runtime.Event) string {
	p, err := ev.Decode()
	if err != nil {
		return string(ev.Payload)
	}
	q := func(s string) string { return fmt.Sprintf("%q", oneLine(s)) }
	switch p := p.(type) {
	case *runtime.ExamStatePayload:
		s := string(p.State)
		if p.Previous != "" {
			s = string(p.Previous) + " → " + s
		}
		if p.Reason != "" {
			s += " (" + p.Reason + ")"
		}
		return s
	case *runtime.NodeEnteredPayload:
		s := fmt.Sprintf("%s [%s] %d/%d", p.NodeID, p.Kind, p.Progress.CurrentNodeIndex, p.Progress.TotalNodes)
		if p.Reason != "" {
			s += " after " + p.Reason
		}
		return s
	case *runtime.NodeExitPayload:
		s := fmt.Sprintf("%s %s after %s, %d evidence", p.NodeID, p.Reason, (time.Duration(p.ElapsedMs) * time.Millisecond).Round(time.Millisecond), p.EvidenceCount)
		if p.Next != "" {
			s += " → " + p.Next
		}
		return s
	case *runtime.TranscriptSegmentPayload:
		return fmt.Sprintf("%s: %s", p.Speaker, q(p.Text))
	case *runtime.ObservationPayload:
		s := fmt.Sprintf("turn %d %s", p.Turn, p.Decision.Action)
		if p.Decision.Reason != "" {
			s += " (" + p.Decision.Reason + ")"
		}
		if !p.Valid {
			s += " INVALID " + strings.Join(p.Problems, "; ")
		}
		return s
	case *runtime.EvidenceUpdatePayload:
		if p.Misconception != nil {
			return fmt.Sprintf("misconception in %s", p.NodeID)
		}
		return fmt.Sprintf("%s %s %s (%d/%d)", p.SignalType, p.RubricLevel, q(p.Excerpt), p.Accepted, p.Required)
	case *runtime.FollowUpIssuedPayload:
		return fmt.Sprintf("%s %d/%d", p.FollowUpType, p.Count, p.Max)
	case *runtime.CommandAcknowledgedPayload:
		s := p.Command + " refused"
		if p.Accepted {
			s = p.Command + " accepted"
		}
		if p.Detail != "" {
			s += " (" + p.Detail + ")"
		}
		return s
	case *runtime.TimeWarningPayload:
		return fmt.Sprintf("%s %s: %ds left", p.Scope, p.NodeID, p.RemainingSec)
	case *runtime.GuardrailTriggeredPayload:
		return fmt.Sprintf("%s %s: %s → %s", p.Guardrail, p.Action, q(p.OriginalText), q(p.ReplacementText))
	case *runtime.RecoveryPayload:
		return strings.TrimSpace(p.Kind.String() + " " + p.SignalType + " " + p.Detail)
	case *runtime.AdminInstructionPayload:
		return fmt.Sprintf("%s %s %s by %s", p.Mode, p.Status, q(p.Text), p.Sender)
	case *runtime.BeatFiredPayload:
		return fmt.Sprintf("%s at %ds: %s", p.Scope, p.AtSec, q(p.Message))
	case *runtime.SpokenPayload:
		return fmt.Sprintf("%s: %s", p.Source, q(p.Text))
	case *runtime.SystemErrorPayload:
		return p.Code.String() + ": " + p.Message
	case *runtime.CandidatePresencePayload:
		return app.PresenceSummary(ev)
	case *runtime.ExamCompletedPayload:
		return fmt.Sprintf("%s after %s, visited %s", p.State, (time.Duration(p.DurationMs) * time.Millisecond).Round(time.Second),
			strings.Join(p.NodesVisited, ", "))
	}
	return string(ev.Payload)
}
