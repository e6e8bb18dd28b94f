package eventprint

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/charmbracelet/x/term"

	"github.com/examtui/examtui/internal/visual"
	"github.com/examtui/examtui/runtime"
)

// ForTerminal reports whether readable lines written to w are read on a terminal: then a line
// holding right-to-left script is laid out in reading order (visual.Line), as the consoles
// show it. Lines for a file or a pipe keep the logical order, which an editor or a viewer lays
// out itself.
func ForTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// appendLine is Append, the readable line in reading order when reading (ForTerminal).
func appendLine(b []byte, ev runtime.Event, asJSON, reading bool) ([]byte, error) {
	start := len(b)
	b, err := Append(b, ev, asJSON)
	if err != nil || asJSON || !reading {
		return b, err
	}
	line := string(b[start : len(b)-1])
	if v := visual.Line(line); v != line {
		b = append(append(b[:start], v...), '\n')
	}
	return b, nil
}

// Printer writes each event of a stream as it arrives, one write per line, so what a reader
// has seen of a committed stream is always in the store. It tells how far it has printed
// (WaitFor), when it printed exam_completed (Ended) and when writing failed (Failed).
type Printer struct {
	w       io.Writer
	asJSON  bool
	reading bool // readable lines for a terminal: in reading order

	mu      sync.Mutex
	printed int64
	changed chan struct{}
	ended   chan struct{} // closed once exam_completed is printed
	failed  chan struct{} // closed at the first write error
}

// New returns a printer writing JSON lines (asJSON) or readable lines (Append) to w.
func New(w io.Writer, asJSON bool) *Printer {
	return &Printer{w: w, asJSON: asJSON, reading: ForTerminal(w), changed: make(chan struct{}), ended: make(chan struct{}),
		failed: make(chan struct{})}
}

// Ended is closed once an exam_completed event has been handled.
func (p *Printer) Ended() <-chan struct{} { return p.ended }

// Failed is closed at the first write error: nobody sees the events any more.
func (p *Printer) Failed() <-chan struct{} { return p.failed }

// Run prints until events closes; after a write error it keeps draining (so the stream's
// producer never stalls) and returns the error.
func (p *Printer) Run(events <-chan runtime.Event) error {
	var werr error
	var line []byte
	for ev := range events {
		if werr == nil {
			var err error
			if line, err = appendLine(line[:0], ev, p.asJSON, p.reading); err == nil {
				_, err = p.w.Write(line)
			}
			if err != nil {
				werr = fmt.Errorf("print seq %d: %w", ev.Seq, err)
				close(p.failed)
			}
		}
		p.mu.Lock()
		if ev.Seq > 0 { // a report from outside the journal (seq 0) is not progress
			p.printed = ev.Seq
		}
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

// WaitFor blocks until the event with this seq has been handled, or ctx ends.
func (p *Printer) WaitFor(ctx context.Context, seq int64) error {
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

// Print writes events until ctx ends, events closes or, unless keepOpen, the exam completes:
// what `examtui watch --json`/`--plain` prints.
func Print(ctx context.Context, events <-chan runtime.Event, w io.Writer, asJSON, keepOpen bool) error {
	var line []byte
	reading := ForTerminal(w)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			var err error
			if line, err = appendLine(line[:0], ev, asJSON, reading); err != nil {
				return err
			}
			if _, err := w.Write(line); err != nil {
				return err
			}
			if ev.Event == runtime.EventExamCompleted && !keepOpen {
				return nil
			}
		}
	}
}
