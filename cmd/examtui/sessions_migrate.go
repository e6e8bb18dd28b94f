package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/sessions"
)

func newSessionsMigrateCmd() *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "migrate --to URL [--from DIR]",
		Short: "Copy a data directory's sessions into another store (PostgreSQL)",
		Long: `Copies every session of a data directory (default: the data directory) into another store,
usually a PostgreSQL database (--to, default --store or $EXAMTUI_STORE): metadata, compiled exam
and events, byte for byte, then every other table's rows — marks, final marks and locks, the
marking and candidate rosters, join links, the access log (its hash chain intact) and any table a
later version adds. Running it again copies only what is new; sessions running in the source are
skipped and reported, with their rows. An access log the destination has added other entries to
cannot be merged: that is refused. The source is not changed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := resolveDataDir()
			if err != nil {
				return err
			}
			if from == "" {
				from = dir
			}
			if to == "" {
				to = app.StoreTarget(globals.store, "")
			}
			if to == "" {
				return errors.New("sessions migrate: --to URL is required (or --store / $EXAMTUI_STORE)")
			}
			src, err := app.OpenStore(cmd.Context(), from, nil)
			if err != nil {
				return err
			}
			defer src.Close()
			dst, err := app.OpenStore(cmd.Context(), to, nil)
			if err != nil {
				return err
			}
			defer dst.Close()
			if src.Engine() == dst.Engine() && src.Target() == dst.Target() {
				return errors.New("sessions migrate: --from and --to are the same store")
			}
			res, err := sessions.CopySessions(cmd.Context(), src, dst)
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s -> %s: %d copied, %d already there", src.Target(), dst.Target(), len(res.Copied), len(res.Present))
			if len(res.Running) > 0 {
				fmt.Fprintf(out, ", %d running (not copied; run again once they stop): %v", len(res.Running), res.Running)
			}
			fmt.Fprintln(out)
			for _, t := range slices.Sorted(maps.Keys(res.Tables)) {
				fmt.Fprintf(out, "  %s: %d rows copied\n", t, res.Tables[t])
			}
			return err
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "data directory to copy from (default: the data directory)")
	cmd.Flags().StringVar(&to, "to", "", "store to copy into, a postgres:// URL (default --store or $EXAMTUI_STORE)")
	return cmd
}
