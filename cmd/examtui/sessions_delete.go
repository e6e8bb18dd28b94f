package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/sessions"
)

// recordFiles are the data directory and the log files a deletion or purge clears: the
// default log file, and --log-file's when one is given.
func recordFiles(dataDir string) (string, []string) {
	logs := []string{filepath.Join(dataDir, "examtui.log")}
	if globals.logFile != "" && globals.logFile != "-" {
		logs = append(logs, globals.logFile)
	}
	return dataDir, logs
}

func newSessionsDeleteCmd() *cobra.Command {
	var yes, force bool
	var reason string
	cmd := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a session completely: rows, recordings, files and log lines (a tombstone stays in the access log)",
		Long: `Delete a session and everything held about it: its row and every row of every table that
refers to it (events, commands, marks, final marks, the mark lock), join codes naming its
candidate (when no other session is theirs), its recordings and folder in the data directory,
and its lines in the log file. The access log keeps a tombstone: the id, when, by whom and
--reason. A session whose marks are locked is deleted only with --force.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dataDir, err := resolveDataDir()
			if err != nil {
				return err
			}
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			id, err := st.Resolve(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			s, err := st.Get(cmd.Context(), id)
			if err != nil {
				return err
			}
			if !yes {
				fmt.Fprintf(cmd.OutOrStdout(), "Delete session %s (%s, %s, %d events, %s) with its recordings and marks? [y/N] ",
					s.ID, sessions.OneLine(s.ExamID), sessions.OneLine(s.Candidate), s.EventCount, s.Status())
				line, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
					fmt.Fprintln(cmd.OutOrStdout(), "Not deleted.")
					return &exitError{code: 1}
				}
			}
			dir, logs := recordFiles(dataDir)
			del, err := st.DeleteSession(cmd.Context(), id, sessions.DeleteRequest{Reason: reason, Force: force, DataDir: dir, Logs: logs})
			if del.Rows["sessions"] == 0 { // refused (locked marks, running) or not found
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Deleted session %s: %s; %d files, %d log lines.\n", id, rowCounts(del.Rows), len(del.Files), del.LogLines)
			return err
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().BoolVar(&force, "force", false, "delete even when the session's marks are locked (they are lost)")
	cmd.Flags().StringVar(&reason, "reason", "", "why, kept in the access log's tombstone (e.g. \"erasure requested by the candidate\")")
	return cmd
}

// rowCounts prints rows removed per table, in a stable order.
func rowCounts(rows map[string]int64) string {
	var parts []string
	for _, t := range []string{"sessions", "events", "commands", "marks", "final_marks", "mark_locks", "join_codes", "exams"} {
		if n := rows[t]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, t))
			delete(rows, t)
		}
	}
	for t, n := range rows {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, t))
		}
	}
	return strings.Join(parts, ", ")
}

// retentionPolicy is the config file's records.retention as the store's policy.
func retentionPolicy(cfg config.File) (sessions.RetentionPolicy, error) {
	a, err := cfg.Records.Retention.Ages()
	if err != nil {
		return sessions.RetentionPolicy{}, err
	}
	return sessions.RetentionPolicy{Recordings: a.Recordings, Events: a.Events, Marks: a.Marks, JoinCodes: a.JoinCodes, Logs: a.Logs}, nil
}

func newSessionsPurgeCmd() *cobra.Command {
	var dry, asJSON bool
	cmd := &cobra.Command{
		Use:   "purge",
		Short: "Apply the retention policy (records.retention in the config file)",
		Long: `Remove what the config file's retention policy says has been kept long enough
(docs/records.md): recordings, transcripts and events, whole sessions past their marks' age,
expired join codes, old log lines. --dry-run prints what would go and removes nothing.
examtui worker, serve and monitor apply the policy once a day by themselves.`,
		Example: `  examtui sessions purge --dry-run
  examtui sessions purge --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dataDir, err := resolveDataDir()
			if err != nil {
				return err
			}
			p, err := retentionPolicy(globals.config)
			if err != nil {
				return err
			}
			if p.Empty() {
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "No retention policy (records.retention in %s): nothing purged.\n", config.Path())
				return err
			}
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			dir, logs := recordFiles(dataDir)
			got, err := st.Purge(cmd.Context(), sessions.PurgeRequest{Policy: p, DryRun: dry, DataDir: dir, Logs: logs})
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), got)
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), sessions.PurgeText(got))
			return err
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "print what would go; remove nothing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// startRetention applies the config file's retention policy to the command's store now and
// once a day (worker, serve, monitor) until the returned stop is called; stop waits for a purge
// under way.
func startRetention(ctx context.Context, dataDir string, log *slog.Logger) (stop func()) {
	p, err := retentionPolicy(globals.config)
	if err != nil { // the config file was checked on load; say so rather than purge wrongly
		log.Warn("retention: policy not applied", "err", err)
		return func() {}
	}
	dir, logs := recordFiles(dataDir)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		app.PurgeDaily(ctx, app.StoreTarget(globals.store, dataDir), sessions.PurgeRequest{Policy: p, DataDir: dir, Logs: logs}, app.PurgeInterval, log)
	}()
	return func() { cancel(); <-done }
}
