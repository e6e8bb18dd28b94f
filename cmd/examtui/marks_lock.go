package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/sessions"
)

func newMarksLockCmd() *cobra.Command {
	var marker string
	cmd := &cobra.Command{
		Use:   "lock ID",
		Short: "Finalise a session's marks (a moderator's step; refused while a criterion has no final level or too few markers)",
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
	markerFlag(cmd, &marker, "who locks")
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
	var asJSON, withPanel bool
	cmd := &cobra.Command{
		Use:   "agreement",
		Short: "Agreement between markers across an exam's sessions (α with intervals, κ and weighted κ per pair, totals, bands, severity)",
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
			if withPanel {
				if a.Panel, err = marking.PanelAgreement(cmd.Context(), st, exam); err != nil {
					return err
				}
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), a)
			}
			return writeAgreement(cmd.OutOrStdout(), a)
		},
	}
	cmd.Flags().StringVar(&exam, "exam", "", "exam id (required)")
	_ = cmd.MarkFlagRequired("exam")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&withPanel, "with-panel", false, "also compare the model panel's stored runs with the final levels (α over the cohort)")
	return cmd
}

func newMarksExportCmd() *cobra.Command {
	var exam, format, title string
	var includeUnverified, includeRehearsals bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "An exam's gradebook, each locked row verified against its lock (csv, json, moodle, canvas)",
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
			var opts []marking.ListOption
			if includeRehearsals {
				opts = append(opts, marking.IncludeRehearsals())
			}
			if includeUnverified && (f == marking.ExportMoodle || f == marking.ExportCanvas) {
				return fmt.Errorf("--include-unverified: an LMS file carries verified rows only (use --format csv or json)")
			}
			if includeUnverified {
				opts = append(opts, marking.IncludeUnverified())
			}
			rows, scheme, err := marking.Gradebook(cmd.Context(), st, exam, opts...)
			if errors.Is(err, marking.ErrUnverified) {
				return &exitError{code: 1, msg: "examtui: " + err.Error() + " (marks verify ID says what; --include-unverified writes them marked)"}
			}
			if err != nil {
				return err
			}
			return marking.WriteGradebook(cmd.OutOrStdout(), f, rows, scheme, title)
		},
	}
	cmd.Flags().StringVar(&exam, "exam", "", "exam id (required)")
	_ = cmd.MarkFlagRequired("exam")
	cmd.Flags().StringVar(&format, "format", "csv", "csv, json, moodle or canvas")
	cmd.Flags().StringVar(&title, "item", "", `moodle, canvas: the grade column's name (default the exam id; Canvas matches "Title (assignment id)" to an existing assignment)`)
	cmd.Flags().BoolVar(&includeRehearsals, "include-rehearsals", false, "include sessions candidate scripts played (examtui test, rehearsals)")
	cmd.Flags().BoolVar(&includeUnverified, "include-unverified", false, "write rows that no longer match their lock, marked in the verified column, instead of refusing")
	return cmd
}
