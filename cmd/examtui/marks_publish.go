package main

import (
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/gradepass"
	"github.com/examtui/examtui/cmd/examtui/internal/lti"
)

func newMarksPublishCmd() *cobra.Command {
	var (
		exam   string
		dryRun bool
	)
	cmd := &cobra.Command{
		Use:   "publish --exam EXAM [--dry-run]",
		Short: "Send locked, verified marks to the gradebook of the LMS the candidates launched from",
		Long: `For each finished session of EXAM whose candidate launched it from an LMS course with a
gradebook column (LTI, docs/lms.md): a locked mark that marks verify still accepts is posted as
the score (FullyGraded); marking still open is posted as Pending; a lock the session no longer
matches sends nothing and makes the command exit 1, naming the sessions. A post the platform
refuses is recorded and tried again by a later run after a back-off (1 min, doubling, at most
1 h); the marking queue shows it. Running it again is safe: what the gradebook has is not sent
twice. --dry-run lists what would be sent.`,
		Example: `  examtui marks publish --exam hospitality-oral-b2 --dry-run
  examtui marks publish --exam hospitality-oral-b2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dataDir, log, closeLog, err := setup()
			if err != nil {
				return err
			}
			defer closeLog()
			reg, err := lti.NewRegistry(ltiPlatforms(globals.config.LTI))
			if err != nil {
				return fmt.Errorf("config lti.platforms: %w", err)
			}
			keys, err := ltiKeys(globals.config.LTI, dataDir)
			if err != nil {
				return err
			}
			st, err := app.OpenStore(cmd.Context(), app.StoreTarget(globals.store, dataDir), log)
			if err != nil {
				return err
			}
			defer st.Close()
			pub := &gradepass.Publisher{Store: st, Platforms: reg, Services: lti.NewServices(keys, nil, nil), Now: time.Now, Logger: log}
			out, err := pub.Publish(cmd.Context(), exam, dryRun)
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SESSION\tCANDIDATE\tSCORE\tGRADING\tOUTCOME")
			failed := 0
			for _, o := range out {
				score := "-"
				if o.Given != nil && o.Max != nil {
					score = fmt.Sprintf("%g/%g", *o.Given, *o.Max)
				}
				what := o.Action
				if o.Reason != "" {
					what += ": " + o.Reason
				}
				if o.Action == gradepass.Failed {
					failed++
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", o.SessionID, orDash(o.Candidate), score, orDash(o.Grading), what)
			}
			_ = tw.Flush()
			if err != nil {
				return err
			}
			if failed > 0 {
				return errors.New(fmt.Sprint(failed, " post(s) failed; they are recorded and a later run tries them again"))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&exam, "exam", "", "the exam's id (as marks queue and export name it)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be sent, send nothing")
	_ = cmd.MarkFlagRequired("exam")
	return cmd
}
