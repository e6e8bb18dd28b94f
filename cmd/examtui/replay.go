package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

func newReplayCmd() *cobra.Command {
	var (
		asJSON bool
		speed  float64
		gapCap time.Duration
		from   int64
	)
	cmd := &cobra.Command{
		Use:   "replay ID",
		Short: "Replay a recorded session at its original timing",
		Long: `Replay a session's events at their original timing, scaled by --speed (0.5 to 16),
with long silences capped at --gap-cap. --json prints one event envelope per line as it
plays.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !asJSON {
				return errors.New("replay in the console is not available yet; use --json")
			}
			st, id, err := resolveSession(cmd, args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			p, err := sessions.NewPlayer(st.Events(cmd.Context(), id, from), sessions.WithSpeed(speed), sessions.WithGapCap(gapCap))
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetEscapeHTML(false)
			err = p.Run(cmd.Context(), func(ev runtime.Event) error {
				if err := enc.Encode(ev); err != nil {
					return fmt.Errorf("write seq %d: %w", ev.Seq, err)
				}
				return nil
			})
			if errors.Is(err, cmd.Context().Err()) && cmd.Context().Err() != nil {
				return nil // interrupted by the user
			}
			return err
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print events as JSON lines while replaying")
	f.Float64Var(&speed, "speed", 1, "replay speed, 0.5 to 16")
	f.DurationVar(&gapCap, "gap-cap", sessions.DefaultGapCap, "longest wait between two events (0: no cap)")
	f.Int64Var(&from, "from", 1, "start at this seq")
	return cmd
}
