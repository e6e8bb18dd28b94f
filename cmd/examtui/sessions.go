package main

import (
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/mdterm"
	"github.com/examtui/examtui/sessions"
)

// openStore opens the session store the command names (--store, $EXAMTUI_STORE, store: in the
// config file, else the data directory).
func openStore(cmd *cobra.Command) (*sessions.Store, error) {
	dir, err := resolveDataDir()
	if err != nil {
		return nil, err
	}
	return app.OpenStore(cmd.Context(), app.StoreTarget(globals.store, dir), nil)
}

// withSession opens the store, resolves idOrPrefix (an id or unambiguous prefix), appends the
// command's access to the session to the access log and runs fn with both; the store is
// closed when fn returns. A session whose access cannot be recorded is not read.
func withSession(cmd *cobra.Command, idOrPrefix string, fn func(st *sessions.Store, id string) error) error {
	st, err := openStore(cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	id, err := st.Resolve(cmd.Context(), idOrPrefix)
	if err != nil {
		return err
	}
	if err := st.RecordAccess(cmd.Context(), sessions.AccessEntry{Action: accessOf(cmd), SessionID: id}); err != nil {
		return fmt.Errorf("record the access: %w", err)
	}
	return fn(st, id)
}

func newSessionsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, export and delete recorded exam sessions",
		Long: `Every exam is recorded in the session store of the data directory (--data-dir,
$EXAMTUI_DATA_DIR, $XDG_DATA_HOME/examtui or ~/.local/share/examtui). Session ids may be
shortened to any unambiguous prefix.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSessionsList(cmd, false) },
	}
	cmd.AddCommand(newSessionsListCmd(), newSessionsShowCmd(), newSessionsDeleteCmd(), newSessionsExportCmd(), newSessionsMigrateCmd(),
		newSessionsPurgeCmd())
	return cmd
}

func newSessionsListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List sessions, newest first",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runSessionsList(cmd, asJSON) },
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func runSessionsList(cmd *cobra.Command, asJSON bool) error {
	st, err := openStore(cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	list, err := st.List(cmd.Context())
	if err != nil {
		return err
	}
	if asJSON {
		return sessions.WriteListJSON(cmd.OutOrStdout(), list, globals.config.Prices)
	}
	return sessions.WriteListTable(cmd.OutOrStdout(), list, globals.config.Prices)
}

func newSessionsShowCmd() *cobra.Command {
	var plain bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Summarise a session: nodes, evidence, guardrails, commands, latency",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withSession(cmd, args[0], func(st *sessions.Store, id string) error {
				sum, err := st.Summary(cmd.Context(), id)
				if err != nil {
					return err
				}
				md := sessions.RenderMarkdown(sum, sessions.MarkdownOptions{Prices: globals.config.Prices})
				out := cmd.OutOrStdout()
				if f, ok := out.(*os.File); ok && !plain && term.IsTerminal(f.Fd()) {
					width := 100
					if w, _, err := term.GetSize(f.Fd()); err == nil && w > 20 {
						width = w - 2
					}
					md = mdterm.Render(md, width, mdterm.WithColor(mdterm.ColorFor(f, os.Environ())))
				}
				_, err = io.WriteString(out, md)
				return err
			})
		},
	}
	cmd.Flags().BoolVar(&plain, "plain", false, "print plain Markdown even on a terminal")
	return cmd
}

func newSessionsExportCmd() *cobra.Command {
	var format, output string
	cmd := &cobra.Command{
		Use:   "export ID",
		Short: "Export a session as runresult, jsonl, markdown or script",
		Long: `Export a session:
  runresult  the small evidence artifact (LiveKit voice.testing RunResult v1 shape):
             decisions, evidence with the candidate's cited words, transitions and
             guardrail events; checked with validate-artifact before it is written
  jsonl      the raw event stream, one envelope per line
  markdown   the examiner's record of the exam, transcript included
  script     a candidate script for examtui test: the candidate's answers, the
             examiner's instructions and lines to say, the variants pinned`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format == scriptFormat { // a candidate script for examtui test (sessions_script.go)
				return exportScript(cmd, args[0], output)
			}
			f, err := sessions.ParseFormat(format)
			if err != nil {
				return err
			}
			return withSession(cmd, args[0], func(st *sessions.Store, id string) error {
				opts := sessions.ExportOptions{Version: version, Prices: globals.config.Prices}
				// mode 0600: exam records are personal data
				return writeOutput(cmd, output, 0o600, func(w io.Writer) error { return st.Export(cmd.Context(), w, id, f, opts) })
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "runresult", "runresult, jsonl, markdown or script (a candidate script for examtui test)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to FILE instead of stdout")
	return cmd
}
