package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/user"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/audio/livekit"
	"github.com/examtui/examtui/internal/app"
	"github.com/examtui/examtui/internal/logredact"
	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/tui"
)

// watchOptions says how an examiner joins an exam room.
type watchOptions struct {
	creds    livekitCreds
	room     string
	identity string
	token    string
}

// dialWatch joins the room as an examiner. The returned client's Events channel carries every
// event the bot publishes (replayed from the start on joining) and it sends admin instructions
// and controls (it is a livekit.CommandSender); the console view reads both.
func dialWatch(ctx context.Context, o watchOptions, log *slog.Logger) (*livekit.Client, error) {
	o.creds.resolve()
	if o.creds.url == "" {
		return nil, errors.New("no LiveKit URL: pass --url or set LIVEKIT_URL")
	}
	tok := o.token
	if tok == "" {
		if o.room == "" {
			return nil, errors.New("--room is required unless --token is given")
		}
		if o.creds.key == "" || o.creds.secret == "" {
			return nil, errors.New("no credentials: pass --token, or set LIVEKIT_API_KEY and LIVEKIT_API_SECRET")
		}
		if o.identity == "" {
			o.identity = defaultExaminerIdentity()
		}
		var err error
		tok, err = livekit.NewToken(o.creds.key, o.creds.secret, o.room, o.identity, livekit.RoleExaminer)
		if err != nil {
			return nil, err
		}
	}
	c, err := livekit.Dial(ctx, o.creds.url, tok, livekit.WithClientLogger(log))
	if err != nil {
		return nil, fmt.Errorf("join room: %w", err)
	}
	return c, nil
}

func newWatchCmd() *cobra.Command {
	var (
		o        watchOptions
		asJSON   bool
		plain    bool
		commands bool
		keepOpen bool
	)
	cmd := &cobra.Command{
		Use:   "watch --room R [--json]",
		Short: "Watch and supervise a live exam in a LiveKit room as an examiner",
		Long: `Join an exam room as an examiner. By default this opens the examiner's console on the running
exam, attached through the room's data channel alone: the same panes as a local exam
(transcript, evidence, guardrails, timers, debug) and the same controls (pause, resume, skip,
advance, end, immediate and queued instructions), which the exam bot accepts only because
this participant's token marks it as an examiner. Typed candidate answers are not available
to an examiner.

The history is replayed on joining, so a late or reconnecting examiner misses nothing.

With --json each event is printed as one JSON line (the event envelope); --plain prints one
readable line per event. With either, --commands reads examiner commands from stdin:
` + livekit.CommandLineHelp,
		Example: `  examtui watch --room exam-42
  examtui watch --room exam-42 --json | jq .event
  examtui watch --url wss://lk.example.org --token "$EXAMINER_TOKEN"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			console := !asJSON && !plain
			var (
				log      *slog.Logger
				closeLog func()
				err      error
			)
			if console {
				// The console owns the terminal: logs go to the log file as for a local exam.
				_, log, closeLog, err = setup()
				if err == nil {
					livekit.SetSDKLogger(log)
				}
			} else {
				log, closeLog, err = openLivekitLog()
			}
			if err != nil {
				return err
			}
			defer closeLog()
			ctx := cmd.Context()
			c, err := dialWatch(ctx, o, log)
			if err != nil {
				return err
			}
			defer c.Close()
			if console {
				return watchConsole(ctx, c, o, log)
			}
			if commands {
				// A blocked stdin read cannot be cancelled, so the reader may outlive this
				// command; its error output is cut off when the command returns.
				errw := &gatedWriter{w: cmd.ErrOrStderr()}
				defer errw.close()
				go readCommandLines(ctx, cmd.InOrStdin(), c, errw)
			}
			// Put back in seq order as for the console, so that a gap is reported.
			octx, cancel := context.WithCancel(ctx)
			defer cancel()
			return printEvents(ctx, orderEvents(octx, c.Events(), gapWait), cmd.OutOrStdout(), asJSON, keepOpen)
		},
	}
	o.creds.addFlags(cmd, true)
	f := cmd.Flags()
	f.StringVar(&o.room, "room", "", "room name (needed unless --token is given)")
	f.StringVar(&o.identity, "identity", "", "examiner identity in the room (default: examiner-<user>-<random>, unique per process)")
	f.StringVar(&o.token, "token", "", "examiner token (from `examtui token --role examiner`); default: minted from the API key")
	f.BoolVar(&asJSON, "json", false, "print events as JSON lines instead of opening the console")
	f.BoolVar(&plain, "plain", false, "print one readable line per event instead of opening the console")
	f.BoolVar(&commands, "commands", false, "with --json or --plain, read examiner commands from stdin")
	f.BoolVar(&keepOpen, "keep-open", false, "with --json or --plain, keep watching after exam_completed")
	return cmd
}

// watchConsole opens the examiner's console on a room: events from the data channel, put back
// in seq order, and controls and instructions sent back over it.
func watchConsole(ctx context.Context, c *livekit.Client, o watchOptions, log *slog.Logger) error {
	title := "exam room"
	if o.room != "" {
		title = "exam room " + o.room
	}
	m, err := tui.New(tui.Info{Title: title, Examiner: "remote (" + c.Identity() + ")", Input: runtime.SourceRoom, Observer: true},
		remoteBackend(ctx, c), tui.WithLogger(log))
	if err != nil {
		return err
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := orderEvents(cctx, c.Events(), gapWait)
	return tui.Run(cctx, m, events)
}

// backendTimeout bounds one command sent from the console.
const backendTimeout = 10 * time.Second

// remoteBackend sends the console's controls and instructions to the bot. An examiner cannot
// answer for the candidate, so SubmitText is refused.
func remoteBackend(ctx context.Context, c livekit.CommandSender) tui.Backend {
	return tui.BackendFuncs{
		ControlFunc: func(action runtime.ControlAction) error {
			cctx, cancel := context.WithTimeout(ctx, backendTimeout)
			defer cancel()
			return c.SendControl(cctx, action)
		},
		AdminFunc: func(mode runtime.AdminMode, text string) error {
			cctx, cancel := context.WithTimeout(ctx, backendTimeout)
			defer cancel()
			return c.SendAdmin(cctx, mode, text)
		},
	}
}

// gapWait is how long events after a missing seq are held back for it: after a reconnection the
// bot re-sends what was lost, and the console's panes assume seq order.
const gapWait = 3 * time.Second

// orderEvents delivers events in seq order: an event whose predecessors have not arrived waits
// for them for at most wait, then everything held goes out in order, after a security warning
// naming the seqs that never came (the journal has no holes, so a gap means lost or withheld
// events). Out-of-band reports (seq 0) pass at once. The returned channel closes when ctx ends.
func orderEvents(ctx context.Context, in <-chan runtime.Event, wait time.Duration) <-chan runtime.Event {
	out := make(chan runtime.Event, 256)
	go func() {
		defer close(out)
		next := int64(1)
		held := map[int64]runtime.Event{}
		var timer *time.Timer
		var timeout <-chan time.Time
		send := func(ev runtime.Event) bool {
			select {
			case out <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		release := func(force bool) bool {
			for len(held) > 0 {
				ev, ok := held[next]
				if !ok {
					if !force {
						return true
					}
					lowest := int64(math.MaxInt64)
					for s := range held {
						lowest = min(lowest, s)
					}
					if !send(gapWarning(held[lowest].SessionID, next, lowest-1)) {
						return false
					}
					next = lowest
					continue
				}
				delete(held, next)
				next++
				if !send(ev) {
					return false
				}
			}
			return true
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-timeout:
				timeout = nil
				if !release(true) {
					return
				}
			case ev := <-in:
				switch {
				case ev.Seq == 0:
					if !send(ev) {
						return
					}
					continue
				case ev.Seq < next:
					continue // already delivered (the client drops exact duplicates too)
				}
				held[ev.Seq] = ev
				if !release(false) {
					return
				}
			}
			if len(held) > 0 && timeout == nil {
				if timer == nil {
					timer = time.NewTimer(wait)
				} else {
					timer.Reset(wait)
				}
				timeout = timer.C
			}
		}
	}()
	return out
}

// gapWarning is the security warning for journal seqs from..to that never arrived.
func gapWarning(session string, from, to int64) runtime.Event {
	msg := fmt.Sprintf("event #%d never arrived from the exam bot; the console may miss part of the exam", from)
	if to > from {
		msg = fmt.Sprintf("events #%d to #%d never arrived from the exam bot; the console may miss part of the exam", from, to)
	}
	ev, err := runtime.NewEvent(session, 0, time.Now(), &runtime.SystemErrorPayload{Code: runtime.CodeEventGap, Message: msg})
	if err != nil {
		panic(err) // a fixed payload type always encodes
	}
	return ev
}

// defaultExaminerIdentity names this examiner uniquely: two examiners (or two watch processes of
// one user) with the same identity would push each other out of the room.
func defaultExaminerIdentity() string {
	name := "examiner"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = "examiner-" + u.Username
	}
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		return name
	}
	return name + "-" + hex.EncodeToString(b[:])
}

// openLivekitLog opens the log file when --log-file was given; otherwise logs are discarded,
// since stdout carries the events.
func openLivekitLog() (*slog.Logger, func(), error) {
	if globals.logFile == "" {
		return slog.New(slog.DiscardHandler), func() {}, nil
	}
	f, err := os.OpenFile(globals.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open log file: %w", err)
	}
	level := slog.LevelInfo
	_ = level.UnmarshalText([]byte(globals.logLevel))
	log := slog.New(logredact.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})))
	livekit.SetSDKLogger(log)
	return log, func() { f.Close() }, nil
}

// printEvents writes events until ctx ends or the exam completes.
func printEvents(ctx context.Context, events <-chan runtime.Event, w io.Writer, asJSON, keepOpen bool) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			if err := printEvent(w, ev, asJSON); err != nil {
				return err
			}
			if ev.Event == runtime.EventExamCompleted && !keepOpen {
				return nil
			}
		}
	}
}

func printEvent(w io.Writer, ev runtime.Event, asJSON bool) error {
	if asJSON {
		data, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("encode event %d: %w", ev.Seq, err)
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	}
	seq := fmt.Sprintf("#%d", ev.Seq)
	if ev.Seq == 0 {
		seq = "--" // an out-of-band report from the bot, not in the journal
	}
	body := string(ev.Payload)
	if s := app.PresenceSummary(ev); s != "" {
		body = s // who joined, left, paused or resumed, in words
	}
	// JSON escapes control characters but not C1 controls or bidi overrides written as UTF-8.
	line := fmt.Sprintf("%s %s %-20s %s", ev.Timestamp.Local().Format("15:04:05"), seq, ev.Event, body)
	_, err := fmt.Fprintln(w, textsafe.Line(line))
	return err
}

// gatedWriter forwards writes until it is closed, then drops them.
type gatedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gatedWriter) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// readCommandLines sends each stdin line as an examiner command.
func readCommandLines(ctx context.Context, r io.Reader, s livekit.CommandSender, errw io.Writer) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		cmd, err := livekit.ParseCommandLine(sc.Text())
		if err != nil {
			fmt.Fprintf(errw, "%v\n%s\n", err, livekit.CommandLineHelp)
			continue
		}
		if err := cmd.Send(ctx, s); err != nil {
			fmt.Fprintf(errw, "send %s: %v\n", cmd.Kind, err)
		}
		if ctx.Err() != nil {
			return
		}
	}
}
