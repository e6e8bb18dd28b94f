package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/marking"
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
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), v)
				}
				return writeView(cmd.OutOrStdout(), v)
			})
		},
	}
	cmd.Flags().StringVar(&marker, "marker", "", "who is looking (required)")
	_ = cmd.MarkFlagRequired("marker")
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
	var asJSON bool
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
			q, err := marking.Queue(cmd.Context(), st, exam, marker)
			if err != nil {
				return err
			}
			if asJSON {
				if q == nil {
					q = []marking.QueueItem{}
				}
				return writeJSON(cmd.OutOrStdout(), q)
			}
			if len(q) == 0 {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), "Nothing waiting.")
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SESSION\tCANDIDATE\tENDED\tWAITING FOR\tCRITERIA")
			for _, it := range q {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", it.SessionID, sessions.OneLine(it.Candidate), it.EndedAt.Local().Format("2006-01-02 15:04"),
					it.Reason, orDash(strings.Join(it.Criteria, ", ")))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&exam, "exam", "", "exam id (required)")
	_ = cmd.MarkFlagRequired("exam")
	cmd.Flags().StringVar(&marker, "marker", "", "list what this marker has still to mark")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
