package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/marking/panel"
	"github.com/examtui/examtui/sessions"
)

func newMarksShowCmd() *cobra.Command {
	var marker string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "A session's marking as one marker may see it (others' levels hidden until you have marked)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, args[0], func(st *sessions.Store, id string) error {
				v, err := marking.Show(cmd.Context(), st, id, marker)
				if err != nil {
					return err
				}
				pr, err := panel.Latest(cmd.Context(), st, id)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), struct {
						*marking.View
						Panel *panel.Result `json:"panel,omitempty"`
					}{v, pr})
				}
				if err := writeView(cmd.OutOrStdout(), v); err != nil {
					return err
				}
				if pr != nil {
					return writePanel(cmd.OutOrStdout(), pr)
				}
				return nil
			})
		},
	}
	markerFlag(cmd, &marker, "who is looking")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func writeView(w io.Writer, v *marking.View) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CRITERION\tPROPOSED\tYOURS\tOTHERS\tFINAL")
	for _, c := range v.Criteria {
		yours := "-"
		if c.Own != nil {
			yours = c.Own.Level
		}
		var others []string
		for _, o := range c.Others {
			others = append(others, sessions.OneLine(o.Marker)+": "+o.Level)
		}
		other := strings.Join(others, ", ")
		if c.Hidden > 0 {
			other = fmt.Sprintf("hidden until you mark (%d)", c.Hidden)
		}
		final := "-"
		if c.Final != nil {
			final = c.Final.Level
		}
		if c.Status != marking.StatusUnknown {
			final += " (" + c.Status.String() + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Criterion, c.Proposed, yours, orDash(other), final)
	}
	if v.Locked {
		fmt.Fprintln(tw, "Locked.")
	}
	return tw.Flush()
}

func newMarksQueueCmd() *cobra.Command {
	var exam, marker string
	var asJSON, includeRehearsals bool
	cmd := &cobra.Command{
		Use:   "queue",
		Short: "An exam's finished sessions waiting for marks, adjudication or the lock",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openStoreAccess(cmd, "", "exam "+exam)
			if err != nil {
				return err
			}
			defer st.Close()
			var opts []marking.ListOption
			if includeRehearsals {
				opts = append(opts, marking.IncludeRehearsals())
			}
			q, err := marking.Queue(cmd.Context(), st, exam, marker, opts...)
			if err != nil {
				return err
			}
			err = writeList(cmd.OutOrStdout(), q, asJSON, "Nothing waiting.", "SESSION\tCANDIDATE\tENDED\tWAITING FOR\tCRITERIA", func(tw io.Writer, it marking.QueueItem) {
				why := it.Reason.String()
				if it.Boundary {
					why += " (crosses a grade boundary)"
				}
				if it.Sampled {
					why += ", in the moderation sample"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", it.SessionID, sessions.OneLine(it.Candidate), it.EndedAt.Local().Format("2006-01-02 15:04"),
					why, orDash(strings.Join(it.Criteria, ", ")))
			})
			if err != nil || asJSON {
				return err
			}
			return writePassbackFailures(cmd.Context(), cmd.OutOrStdout(), st, exam)
		},
	}
	cmd.Flags().StringVar(&exam, "exam", "", "exam id (required)")
	_ = cmd.MarkFlagRequired("exam")
	cmd.Flags().StringVar(&marker, "marker", "", "list what this marker has still to mark")
	cmd.Flags().BoolVar(&includeRehearsals, "include-rehearsals", false, "include sessions candidate scripts played (examtui test, rehearsals)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// writePassbackFailures lists the exam's scores the gradebook did not take (marks publish,
// docs/lms.md): whose, the error, and when a run tries again. Nothing when there are none.
func writePassbackFailures(ctx context.Context, w io.Writer, st *sessions.Store, exam string) error {
	failed, err := st.FailedLTIScores(ctx, exam)
	if err != nil || len(failed) == 0 {
		return err
	}
	fmt.Fprintf(w, "\nScores the gradebook did not take (%d); examtui marks publish sends them again from NEXT TRY on:\n", len(failed))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tCANDIDATE\tGRADING\tATTEMPTS\tNEXT TRY\tERROR")
	for _, f := range failed {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", f.SessionID, orDash(sessions.OneLine(f.Candidate)), f.Grading, f.Attempts,
			f.NextAttempt.Local().Format("2006-01-02 15:04:05"), sessions.OneLine(f.LastError))
	}
	return tw.Flush()
}
