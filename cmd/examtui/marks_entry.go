package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/sessions"
)

// entryFlags are the flags of a step that gives a level.
type entryFlags struct {
	criterion, level, marker, justification string
}

func (f *entryFlags) add(cmd *cobra.Command, markerHelp string) {
	cmd.Flags().StringVar(&f.criterion, "criterion", "", "criterion id (required)")
	cmd.Flags().StringVar(&f.level, "level", "", "level name, or none (required)")
	markerFlag(cmd, &f.marker, markerHelp)
	cmd.Flags().StringVar(&f.justification, "justification", "", "why this level (required)")
	for _, name := range []string{"criterion", "level", "justification"} {
		_ = cmd.MarkFlagRequired(name)
	}
}

func newMarksSetCmd() *cobra.Command {
	return newMarkEntryCmd("set ID", "Give a criterion a level as one marker (replaces that marker's earlier level)",
		"who is marking", marking.SetMark, func(id string, m sessions.Mark) string {
			return fmt.Sprintf("%s: %s %s = %s (%d marks)", id, sessions.OneLine(m.Marker), m.Criterion, m.Level, m.Marks)
		})
}

func newMarksAdjudicateCmd() *cobra.Command {
	return newMarkEntryCmd("adjudicate ID", "Set a criterion's final level where markers disagree",
		"who adjudicates", marking.Adjudicate, func(id string, m sessions.Mark) string {
			return fmt.Sprintf("%s: final %s = %s (%d marks), adjudicated by %s", id, m.Criterion, m.Level, m.Marks, sessions.OneLine(m.Marker))
		})
}

// newMarkEntryCmd is a command that gives one criterion a level (set, adjudicate): the entry's
// flags, record to save it, and what to print once saved.
func newMarkEntryCmd(use, short, markerHelp string,
	record func(context.Context, *sessions.Store, marking.Entry, time.Time) (sessions.Mark, error),
	saved func(id string, m sessions.Mark) string) *cobra.Command {
	var f entryFlags
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, args[0], func(st *sessions.Store, id string) error {
				m, err := record(cmd.Context(), st, marking.Entry{SessionID: id, Criterion: f.criterion, Level: f.level,
					Marker: f.marker, Justification: f.justification}, time.Now())
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(cmd.OutOrStdout(), saved(id, m))
				return err
			})
		},
	}
	f.add(cmd, markerHelp)
	return cmd
}

// markerFlag is --marker: optional, and when given it must be who the store says you are (the
// PostgreSQL role you connect as, or your operating-system account on SQLite).
func markerFlag(cmd *cobra.Command, p *string, who string) {
	cmd.Flags().StringVar(p, "marker", "", who+": you, as the store knows you; a different name is refused")
}
