package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/atrest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui"
)

type replayOptions struct {
	audio    bool
	identity string
	asJSON   bool
	speed    float64
	gapCap   time.Duration
	from     int64
	paused   bool
}

func newReplayCmd() *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay ID",
		Short: "Replay a recorded session at its original timing",
		Long: `Replay a session in a read-only console at its original timing, scaled by --speed
(0.5 to 16), with long silences capped at --gap-cap, so node transitions can be debugged
after the fact. Keys: space pauses and resumes, n (or →) steps one event, + and - change the
speed, q quits. --from N shows the first N-1 events at once and plays from seq N.

--json prints one event envelope per line as it plays instead of opening the console.

--audio plays the session's recordings (both sides, mixed) with sox's play from the first event
played, at --speed; recordings encrypted at rest need --identity. The recordings keep their own
timing: pausing, stepping and the gap cap do not move them.`,
		Example: `  examtui replay 3f2a
  examtui replay 3f2a --speed 4 --gap-cap 500ms
  examtui replay 3f2a --paused --from 40
  examtui replay 3f2a --json --speed 16 | jq -c '{seq, event}'
  examtui replay 3f2a --audio --identity ~/.config/examtui/records.key`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.from < 1 {
				return fmt.Errorf("--from %d: seq starts at 1", o.from)
			}
			popts := []sessions.PlayerOption{sessions.WithSpeed(o.speed), sessions.WithGapCap(o.gapCap)}
			if o.paused {
				popts = append(popts, sessions.WithStartPaused())
			}
			if o.asJSON {
				return replayJSON(cmd, args[0], o, popts)
			}
			return replayConsole(cmd, args[0], o, popts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.asJSON, "json", false, "print events as JSON lines while replaying (no console)")
	f.Float64Var(&o.speed, "speed", 1, "replay speed, 0.5 to 16")
	f.DurationVar(&o.gapCap, "gap-cap", sessions.DefaultGapCap, "longest wait between two events (0: no cap)")
	f.Int64Var(&o.from, "from", 1, "start playing at this seq (earlier events are shown at once)")
	f.BoolVar(&o.paused, "paused", false, "start paused (space plays, n steps)")
	f.BoolVar(&o.audio, "audio", false, "play the session's recordings alongside (sox's play)")
	f.StringVar(&o.identity, "identity", "", "age identity file, for recordings encrypted at rest")
	return cmd
}

func replayJSON(cmd *cobra.Command, idOrPrefix string, o replayOptions, popts []sessions.PlayerOption) error {
	return withSession(cmd, idOrPrefix, func(st *sessions.Store, id string) error {
		if o.paused {
			return errors.New("--paused needs the console (it has no keys to resume with --json)")
		}
		p, err := sessions.NewPlayer(st.Events(cmd.Context(), id, o.from), popts...)
		if err != nil {
			return err
		}
		stop, err := replayAudio(cmd.Context(), st, id, o)
		if err != nil {
			return err
		}
		defer stop()
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetEscapeHTML(false)
		err = p.Run(cmd.Context(), func(ev runtime.Event) error {
			if err := enc.Encode(ev); err != nil {
				return fmt.Errorf("write seq %d: %w", ev.Seq, err)
			}
			return nil
		})
		if err != nil && cmd.Context().Err() != nil && errors.Is(err, cmd.Context().Err()) {
			return nil // interrupted by the user
		}
		return err
	})
}

// replayConsole plays a stored session in a read-only console steered by a sessions.Player:
// the player feeds the console's event stream and the replay keys steer the player.
func replayConsole(cmd *cobra.Command, idOrPrefix string, o replayOptions, popts []sessions.PlayerOption) error {
	_, log, closeLog, err := setup()
	if err != nil {
		return err
	}
	defer closeLog()
	return withSession(cmd, idOrPrefix, func(st *sessions.Store, id string) error {
		ctx, cancel := context.WithCancel(cmd.Context())
		defer cancel()
		r, err := app.OpenReplay(ctx, st, id, o.from, popts, append(replayGraphOption(ctx, st, id), tui.WithLogger(log.With("replay", id)))...)
		if err != nil {
			return err
		}
		stop, err := replayAudio(ctx, st, id, o)
		if err != nil {
			return err
		}
		defer stop()
		log.Info("replay started", "session", id, "events", r.Session.EventCount, "from", o.from, "speed", o.speed)
		err = tui.Run(ctx, r.Model, r.Events)
		cancel() // quitting the console stops the player
		if perr := <-r.Played; perr != nil && !errors.Is(perr, context.Canceled) && err == nil {
			err = fmt.Errorf("replay %s: %w", id, perr)
		}
		return err
	})
}

// replayAudio starts the session's recordings with --audio (decrypted with --identity); stop
// ends them. Without --audio it does nothing.
func replayAudio(ctx context.Context, st *sessions.Store, id string, o replayOptions) (stop func(), err error) {
	if !o.audio {
		return func() {}, nil
	}
	ids, err := atrest.Identities(o.identity)
	if err != nil {
		return nil, err
	}
	sess, err := st.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	player, _ := exec.LookPath("play")
	a, err := app.PlayRecordings(ctx, player, sess.Recordings, app.RecordingOffset(ctx, st, id, o.from), o.speed, ids)
	if err != nil {
		return nil, err
	}
	return a.Stop, nil
}
