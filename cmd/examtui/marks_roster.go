package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/sessions"
)

func newMarksRosterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "roster",
		Short: "Who marks and moderates an exam (the store's owner adds and removes)",
		Long: `An exam's roster gives people a role in its marking: marker (gives levels) or moderator
(adjudicates sessions they did not mark, and locks). On PostgreSQL a name is a database LOGIN
role, and adding it grants that role exactly what marking needs; row-level security keeps each
marker blind to the others' levels until they have given their own. With no roster, whoever
uses the store takes every step (one person's local store). See docs/marking.md.`,
		Args: cobra.NoArgs,
	}
	var exam, role string
	change := func(use, short string, do func(*cobra.Command, *sessions.Store, sessions.MarkingRole, string) error) *cobra.Command {
		c := &cobra.Command{
			Use:   use + " NAME",
			Short: short,
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				r, err := sessions.ParseMarkingRole(role)
				if err != nil {
					return err
				}
				st, err := openStore(cmd)
				if err != nil {
					return err
				}
				defer st.Close()
				return do(cmd, st, r, args[0])
			},
		}
		c.Flags().StringVar(&exam, "exam", "", "exam id (required)")
		c.Flags().StringVar(&role, "role", "", "marker or moderator (required)")
		_ = c.MarkFlagRequired("exam")
		_ = c.MarkFlagRequired("role")
		return c
	}
	add := change("add", "Give NAME a role in an exam's marking (on PostgreSQL: a LOGIN role, granted what marking needs)",
		func(cmd *cobra.Command, st *sessions.Store, r sessions.MarkingRole, name string) error {
			if err := st.AddToRoster(cmd.Context(), exam, name, r); err != nil {
				return err
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s: %s is a %s\n", exam, sessions.OneLine(name), r)
			return err
		})
	remove := change("remove", "Take a role in an exam's marking away from NAME",
		func(cmd *cobra.Command, st *sessions.Store, r sessions.MarkingRole, name string) error {
			if err := st.RemoveFromRoster(cmd.Context(), exam, name, r); err != nil {
				return err
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s: %s is no longer a %s\n", exam, sessions.OneLine(name), r)
			return err
		})
	var listExam string
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "An exam's roster (every exam's without --exam)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			entries, err := st.Roster(cmd.Context(), listExam)
			if err != nil {
				return err
			}
			return writeList(cmd.OutOrStdout(), entries, asJSON, "No roster: whoever uses the store takes every step.",
				"EXAM\tROLE\tNAME\tADDED BY\tADDED", func(tw io.Writer, e sessions.RosterEntry) {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.ExamID, e.Role, sessions.OneLine(e.Name), sessions.OneLine(e.AddedBy), e.At.Format(time.RFC3339))
				})
		},
	}
	list.Flags().StringVar(&listExam, "exam", "", "exam id")
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(add, remove, list)
	return cmd
}
