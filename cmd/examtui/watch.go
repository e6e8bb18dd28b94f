package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"sync"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/audio/livekit"
	"github.com/examtui/examtui/runtime"
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
		commands bool
		keepOpen bool
	)
	cmd := &cobra.Command{
		Use:   "watch --room R [--json]",
		Short: "Watch a live exam in a LiveKit room as an examiner",
		Long: `Join an exam room as an examiner and print the exam's events as they happen: every event,
including evidence, observations and guardrails, which the candidate never receives. The history
is replayed on joining, so a late or reconnecting examiner misses nothing.

With --json each event is printed as one JSON line (the event envelope). With --commands, lines
read from stdin are sent to the bot:
` + livekit.CommandLineHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, closeLog, err := openLivekitLog()
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
			if commands {
				// A blocked stdin read cannot be cancelled, so the reader may outlive this
				// command; its error output is cut off when the command returns.
				errw := &gatedWriter{w: cmd.ErrOrStderr()}
				defer errw.close()
				go readCommandLines(ctx, cmd.InOrStdin(), c, errw)
			}
			return printEvents(ctx, c.Events(), cmd.OutOrStdout(), asJSON, keepOpen)
		},
	}
	o.creds.addFlags(cmd, true)
	f := cmd.Flags()
	f.StringVar(&o.room, "room", "", "room name (needed unless --token is given)")
	f.StringVar(&o.identity, "identity", defaultExaminerIdentity(), "examiner identity in the room")
	f.StringVar(&o.token, "token", "", "examiner token (from `examtui token --role examiner`); default: minted from the API key")
	f.BoolVar(&asJSON, "json", false, "print events as JSON lines")
	f.BoolVar(&commands, "commands", false, "read examiner commands from stdin")
	f.BoolVar(&keepOpen, "keep-open", false, "keep watching after exam_completed")
	return cmd
}

func defaultExaminerIdentity() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "examiner-" + u.Username
	}
	return "examiner"
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
	log := slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level}))
	livekit.SetSDKLogger(log)
	return log, func() { f.Close() }, nil
}

// printEvents writes events until ctx ends or the exam completes.
func printEvents(ctx context.Context, events <-chan runtime.Event, w io.Writer, asJSON, keepOpen bool) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-events:
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
	_, err := fmt.Fprintf(w, "%s %s %-20s %s\n", ev.Timestamp.Local().Format("15:04:05"), seq, ev.Event, ev.Payload)
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
