package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/examtui/examtui/internal/eventprint"
	"github.com/examtui/examtui/internal/operator"
	"github.com/examtui/examtui/runtime"
)

// Exit statuses of a headless run besides 0 (the exam completed) and 1 (an error).
const (
	ExitEnded       = 2   // the exam ended without completing (aborted, expired)
	ExitInterrupted = 130 // a signal, stdout gone, or end of input while paused: the session is kept, resumable
)

// ExitError is how a headless run that did not complete ends: the process's exit status and
// the line for stderr (with the command that continues an interrupted session).
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// eofPollInterval is how often a run whose stdin ended checks whether it can still end.
const eofPollInterval = 100 * time.Millisecond

// drainTimeout bounds how long a closing run waits for committed events to reach stdout.
const drainTimeout = 10 * time.Second

// HeadlessConfig says where a headless run prints and how it is continued.
type HeadlessConfig struct {
	Out  io.Writer // every committed event, one line each (eventprint)
	Err  io.Writer // refusals, the resume hint's companions, the final summary
	JSON bool      // JSON lines instead of readable ones
	Log  *slog.Logger
	// ResumeFlags are the flags besides --resume ID --headless that continue the session
	// (e.g. "--room NAME"), for the hint printed when the run is interrupted.
	ResumeFlags string
}

// stop is why a headless run's loop ended.
type stop int

const (
	stopEnded       stop = iota // the exam ended, or the run stopped on an error: drain, then close
	stopInterrupted             // drain, close; the session stays resumable
	stopUnstarted               // the exam did not start: close at once
)

// headless is the part both headless runs share: the printer and the finish.
type headless struct {
	x       *Exam
	cfg     HeadlessConfig
	log     *slog.Logger
	printer *eventprint.Printer
	printed chan error
	close   func() error // closes the exam (and what else the run holds)
}

func (x *Exam) newHeadless(cfg HeadlessConfig, closeFn func() error) *headless {
	log := cfg.Log
	if log == nil {
		log = x.log
	}
	h := &headless{x: x, cfg: cfg, log: log, printer: eventprint.New(cfg.Out, cfg.JSON), printed: make(chan error, 1), close: closeFn}
	go func() { h.printed <- h.printer.Run(x.Events()) }()
	return h
}

// finish drains (every event the controller emitted committed and printed, unless the exam
// never started), closes, and turns the outcome into the run's error: nil when the exam
// completed, an *ExitError when it ended otherwise or was interrupted.
func (h *headless) finish(why stop, runErr error) error {
	if why != stopUnstarted {
		h.drain()
	}
	closeErr := h.close()
	if closeErr != nil {
		h.log.Error("headless: close", "err", closeErr)
	}
	if err := <-h.printed; err != nil && runErr == nil {
		runErr = err
	}
	if runErr == nil {
		runErr = closeErr
	}
	if runErr != nil {
		return runErr
	}
	x := h.x
	snap := x.Controller.Snapshot()
	switch {
	case why == stopInterrupted || !snap.State.Terminal():
		flags := ""
		if h.cfg.ResumeFlags != "" {
			flags = " " + h.cfg.ResumeFlags
		}
		return &ExitError{Code: ExitInterrupted, Msg: fmt.Sprintf(
			"interrupted: session %s kept at seq %d (continue with: examtui run --resume %s%s --headless)",
			x.SessionID, snap.Seq, x.SessionID, flags)}
	case snap.State != runtime.StateCompleted:
		return &ExitError{Code: ExitEnded, Msg: fmt.Sprintf("session %s ended %s", x.SessionID, snap.State)}
	}
	fmt.Fprintf(h.cfg.Err, "session %s completed (%d events)\n", x.SessionID, snap.Seq)
	return nil
}

// drain waits until every event the controller emitted is committed and printed, so a run
// that ends (or is interrupted) shows everything it stored.
func (h *headless) drain() {
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if h.x.Journal != nil {
		if err := h.x.Journal.Flush(ctx); err != nil {
			h.log.Warn("headless: flush journal", "err", err)
			return
		}
	}
	target := h.x.Controller.Snapshot().Seq
	if err := h.printer.WaitFor(ctx, target); err != nil {
		h.log.Warn("headless: not every event was printed", "target", target, "err", err)
	}
}

// RunHeadless runs a local exam with no console: answers and operator commands from stdin
// (internal/operator), every event printed once it is committed. At the end of stdin it waits
// for the exam to complete (or its time budget to expire), unless the exam is paused (nothing
// could resume it); the end of ctx closes the session cleanly, interrupted and resumable.
// It closes x.
func (x *Exam) RunHeadless(ctx context.Context, stdin io.Reader, cfg HeadlessConfig) error {
	h := x.newHeadless(cfg, x.Close)
	if err := x.Start(ctx); err != nil {
		return h.finish(stopUnstarted, fmt.Errorf("start exam: %w", err))
	}
	h.log.Info("headless exam started", "session", x.SessionID, "exam", x.Spec.ID, "examiner", x.Examiner,
		"resumed_at_seq", x.Controller.Snapshot().Seq)
	why, err := h.readLoop(ctx, stdin)
	return h.finish(why, err)
}

// readLoop applies stdin's lines until the exam ends, ctx ends, the store or stdout fails, or
// stdin ends while the exam is paused.
func (h *headless) readLoop(ctx context.Context, stdin io.Reader) (stop, error) {
	x := h.x
	// A blocked read of stdin cannot be cancelled; the reader ends with the process (or at EOF).
	lines := make(chan inputLine)
	go func() {
		defer close(lines)
		err := readLines(stdin, MaxInputLine, func(l inputLine) bool {
			select {
			case lines <- l:
				return true
			case <-h.printer.Ended():
				return false
			}
		})
		if err != nil {
			h.log.Warn("headless: reading stdin", "err", err)
		}
	}()

	var (
		eofCheck    <-chan time.Time // after EOF: a paused exam can never resume, so stop
		storeFailed <-chan struct{}  // the journal could not commit: stop, nothing more can be shown
	)
	if x.Journal != nil {
		storeFailed = x.Journal.Failed()
	}
	for {
		select {
		case <-ctx.Done():
			return stopInterrupted, nil
		case <-storeFailed:
			return stopEnded, fmt.Errorf("session store: %w", x.Journal.Err())
		case <-h.printer.Ended():
			return stopEnded, nil
		case <-h.printer.Failed():
			// stdout is gone: nobody sees the events any more, so stop like an interrupt.
			return stopInterrupted, nil
		case <-eofCheck:
			if x.Controller.Snapshot().State == runtime.StatePaused {
				h.log.Info("headless: end of stdin while the exam is paused; stopping")
				fmt.Fprintln(h.cfg.Err, "examtui: end of input while the exam is paused")
				return stopInterrupted, nil
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
				h.log.Warn("headless: input line too long; ignored", "bytes", line.tooLong, "max", MaxInputLine)
				fmt.Fprintf(h.cfg.Err, "examtui: input line of %d bytes ignored (the longest accepted is %d bytes)\n", line.tooLong, MaxInputLine)
				continue
			}
			if err := h.dispatch(ctx, line.text); err != nil {
				if ctx.Err() != nil {
					return stopInterrupted, nil
				}
				return stopEnded, err
			}
		}
	}
}

// dispatch applies one stdin line. Refusals (a turn while paused, /resume while running) are
// reported on stderr and the run goes on; only a failing event sink stops it.
func (h *headless) dispatch(ctx context.Context, line string) error {
	in, err := operator.Parse(line, operator.Answers)
	if err != nil {
		fmt.Fprintf(h.cfg.Err, "examtui: %v\n%s\n", err, operator.Help(operator.Answers))
		return nil
	}
	c := h.x.Controller
	switch in.Kind {
	case operator.KindNone:
		return nil
	case operator.KindAnswer:
		err = c.SubmitTurn(ctx, runtime.Turn{Text: in.Text, Source: runtime.SourceTyped})
	case operator.KindControl:
		// Controls and instructions are not cut short by the end of ctx: one typed before a
		// signal still applies, and the loop stops at its next turn.
		err = c.Control(context.Background(), in.Action, localSender())
	case operator.KindAdmin:
		err = c.Admin(context.Background(), runtime.AdminInstruction{Mode: in.Mode, Text: in.Text, Sender: localSender()})
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, runtime.ErrSink), errors.Is(err, runtime.ErrClosed):
		return err
	case ctx.Err() != nil:
		return ctx.Err()
	}
	h.log.Warn("headless: line refused", "kind", in.Kind, "err", err)
	fmt.Fprintf(h.cfg.Err, "examtui: %s refused: %v\n", in.Kind, err)
	return nil
}
