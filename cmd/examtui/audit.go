package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui/controlroom"
)

// accessOf names what cmd does to a session in the access log: its path under examtui
// ("sessions.show", "marks.set", "replay").
func accessOf(cmd *cobra.Command) sessions.Access {
	path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	return sessions.Access(strings.ReplaceAll(path, " ", "."))
}

// openStoreAccess opens the store and appends this command's access to session id (empty for
// a whole exam's records, detail naming it) to the access log. A store that cannot record the
// access is not read.
func openStoreAccess(cmd *cobra.Command, id, detail string) (*sessions.Store, error) {
	st, err := openStore(cmd)
	if err != nil {
		return nil, err
	}
	if err := st.RecordAccess(cmd.Context(), sessions.AccessEntry{Action: accessOf(cmd), SessionID: id, Detail: detail}); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("record the access: %w", err)
	}
	return st, nil
}

func newAuditCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "The access log: who read or changed which session's records, and its check",
		Long: `Every read or change of a session's records by a person (sessions show and export,
replay, watch, the control room opening an exam, marks, mark, candidates export, delete,
purge) appends one entry to the store's access log: who (the store's identity: the PostgreSQL
role, or the operating-system account on SQLite), what, which session, when and from where.
The log is append-only and hash-chained (docs/records.md).`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newAuditLogCmd(), newAuditVerifyCmd())
	return cmd
}

func newAuditLogCmd() *cobra.Command {
	var f sessions.AccessFilter
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Print the access log, oldest first",
		Example: `  examtui audit log --session 3f2a9c
  examtui audit log --who alice --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			log, err := st.AccessLog(cmd.Context(), f)
			if err != nil {
				return err
			}
			if asJSON {
				if log == nil {
					log = []sessions.AccessEntry{}
				}
				return writeJSON(cmd.OutOrStdout(), log)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SEQ\tWHEN\tWHO\tWHAT\tSESSION\tFROM\tDETAIL")
			for _, e := range log {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Seq, e.At.Local().Format("2006-01-02 15:04:05"), sessions.OneLine(e.Who),
					e.Action, orDash(e.SessionID), sessions.OneLine(e.From), sessions.OneLine(e.Detail))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&f.SessionID, "session", "", "only this session's entries (its full id)")
	cmd.Flags().StringVar(&f.Who, "who", "", "only this person's entries (a PostgreSQL role or an account name)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newAuditVerifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Check the access log's hash chain: exit 1 naming the first entry edited, removed or out of turn",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			n, err := st.VerifyAccessLog(cmd.Context())
			if err != nil {
				return &exitError{code: 1, msg: fmt.Sprintf("%v (%d entries check out before it)", err, n)}
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "Access log intact: %d entries, each chained to the one before.\n", n)
			return err
		},
	}
}

// watchAccess records in the access log each exam watch is shown (the room's events name its
// session). Watch reaches the exam through the room, not the store: when the store named by
// --store or the data directory cannot be opened, the access is logged as not recorded.
func watchAccess(cmd *cobra.Command, log *slog.Logger) func(id string) {
	return func(id string) {
		ctx := cmd.Context()
		st, err := openStore(cmd)
		if err == nil {
			err = st.RecordAccess(ctx, sessions.AccessEntry{Action: sessions.AccessWatch, SessionID: id})
			err = errors.Join(err, st.Close())
		}
		if err != nil {
			log.Warn("watch: the access log could not record this watch", "session", id, "err", err)
		}
	}
}

// openAccess is the control room's loader of an exam's history with its access recorded first:
// opening an exam reads its records. A store that cannot record it is not read.
func openAccess(st *sessions.Store, load controlroom.LoadFunc) controlroom.LoadFunc {
	return func(ctx context.Context, id string) ([]runtime.Event, error) {
		if err := st.RecordAccess(ctx, sessions.AccessEntry{Action: sessions.AccessMonitorOpen, SessionID: id}); err != nil {
			return nil, fmt.Errorf("record the access: %w", err)
		}
		return load(ctx, id)
	}
}
