package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/sessions"
)

func newMarksLockCmd() *cobra.Command {
	var marker string
	cmd := &cobra.Command{
		Use:   "lock ID",
		Short: "Finalise a session's marks (refused while a criterion has no final level)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, args[0], func(st *sessions.Store, id string) error {
				l, err := marking.Lock(cmd.Context(), st, id, marker, time.Now())
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: locked by %s at %s, digest sha256:%s\n", id, sessions.OneLine(l.Marker), l.At.Format(time.RFC3339), l.Digest)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&marker, "marker", "", "who locks (required)")
	_ = cmd.MarkFlagRequired("marker")
	return cmd
}

func newMarksVerifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify ID",
		Short: "Check a locked session's events and marks against its lock (exit 1 naming what changed)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, args[0], func(st *sessions.Store, id string) error {
				v, err := marking.Verify(cmd.Context(), st, id)
				if err != nil {
					return err
				}
				w := cmd.OutOrStdout()
				if v.OK() {
					_, err := fmt.Fprintf(w, "%s: ok: events and marks are as locked by %s at %s (sha256:%s)\n", id, sessions.OneLine(v.Lock.Marker),
						v.Lock.At.Format(time.RFC3339), v.Digest)
					return err
				}
				fmt.Fprintf(w, "%s: changed since the lock by %s at %s:\n", id, sessions.OneLine(v.Lock.Marker), v.Lock.At.Format(time.RFC3339))
				for _, c := range v.Changes {
					fmt.Fprintln(w, "  "+c)
				}
				return &exitError{code: 1, msg: fmt.Sprintf("examtui: %s: %v (%d)", id, marking.ErrTampered, len(v.Changes))}
			})
		},
	}
}

func newMarksAgreementCmd() *cobra.Command {
	var exam string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "agreement",
		Short: "Agreement between markers across an exam's sessions (exact, Cohen's κ, Krippendorff's α)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openStoreAccess(cmd, "", "exam "+exam)
			if err != nil {
				return err
			}
			defer st.Close()
			a, err := marking.ExamAgreement(cmd.Context(), st, exam)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), a)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "Markers: %s. κ compares the first two markers of each item; α is ordinal.\n", orDash(strings.Join(a.Markers, ", ")))
			fmt.Fprintln(tw, "CRITERION\tITEMS\tEXACT\tKAPPA\tALPHA\tNOTE")
			row := func(name string, f marking.AgreementFigures) {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", name, f.Items, figure(f.Exact), figure(f.Kappa), figure(f.Alpha), f.Undefined)
			}
			for _, c := range a.Criteria {
				row(c.Criterion, c.AgreementFigures)
			}
			row("all criteria", a.Overall)
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&exam, "exam", "", "exam id (required)")
	_ = cmd.MarkFlagRequired("exam")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newMarksExportCmd() *cobra.Command {
	var exam, format string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "An exam's gradebook: candidate, session, levels, marks, total, result, markers, lock",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := marking.ParseExportFormat(format)
			if err != nil {
				return err
			}
			st, err := openStoreAccess(cmd, "", "exam "+exam)
			if err != nil {
				return err
			}
			defer st.Close()
			rows, scheme, err := marking.Gradebook(cmd.Context(), st, exam)
			if err != nil {
				return err
			}
			return marking.WriteGradebook(cmd.OutOrStdout(), f, rows, scheme)
		},
	}
	cmd.Flags().StringVar(&exam, "exam", "", "exam id (required)")
	_ = cmd.MarkFlagRequired("exam")
	cmd.Flags().StringVar(&format, "format", "csv", "csv or json")
	return cmd
}
