package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/eventprint"
	"github.com/examtui/examtui/internal/logredact"
	"github.com/examtui/examtui/internal/operator"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
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
	// Only an examiner is sent the exam's events: with any other token watch would wait for
	// nothing.
	info, err := livekit.CheckToken(tok, o.room, livekit.RoleExaminer)
	if err != nil {
		return nil, err
	}
	// LiveKit gives an identity to one participant at a time: two clients holding one take it
	// from each other until one gives up with "could not connect after timeout". With the API
	// key the server is asked first, so a taken identity is refused at once, in plain words.
	if o.creds.key != "" && o.creds.secret != "" {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		in, qerr := livekit.IdentityInRoom(qctx, o.creds.url, o.creds.key, o.creds.secret, info.Room, info.Identity)
		cancel()
		if qerr == nil && in {
			return nil, fmt.Errorf("join room: the identity %q is already in room %q (another watch?): pass another --identity, or leave it out for a fresh one",
				info.Identity, info.Room)
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
readable line per event, as run --headless does. With either, --commands reads examiner
commands from stdin, ` + operator.Help(operator.Commands),
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
			nctx, stop := context.WithCancel(ctx)
			defer stop()
			events := app.NoteSessions(nctx, c.Events(), watchAccess(cmd, log))
			if console {
				return watchConsole(ctx, c, events, o, log)
			}
			if commands {
				// A blocked stdin read cannot be cancelled, so the reader may outlive this
				// command; its error output is cut off when the command returns.
				errw := &gatedWriter{w: cmd.ErrOrStderr()}
				defer errw.close()
				go app.SendCommandLines(ctx, cmd.InOrStdin(), c, errw)
			}
			// Put back in seq order as for the console, so that a gap is reported.
			octx, cancel := context.WithCancel(ctx)
			defer cancel()
			return eventprint.Print(ctx, app.OrderEvents(octx, events, app.GapWait), cmd.OutOrStdout(), asJSON, keepOpen)
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
func watchConsole(ctx context.Context, c *livekit.Client, in <-chan runtime.Event, o watchOptions, log *slog.Logger) error {
	title := "exam room"
	if o.room != "" {
		title = "exam room " + o.room
	}
	m, err := tui.New(tui.Info{Title: title, Examiner: "remote (" + c.Identity() + ")", Input: runtime.SourceRoom, Observer: true},
		app.RemoteBackend(ctx, c), tui.WithLogger(log))
	if err != nil {
		return err
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := app.OrderEvents(cctx, in, app.GapWait)
	return tui.Run(cctx, m, events)
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
