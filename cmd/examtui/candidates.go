package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/sessions"
)

func newCandidatesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "candidates",
		Short: "Candidates: the roster of the institution's identifiers, and everything held about one (subject access)",
		Long: `The candidate roster holds, per candidate, the identifiers a learning platform matches
grades on: candidate_id (required, examtui's own), name, email, username, sis_user_id,
sis_login_id, lms_user_id and section. A session attached to a candidate carries them into
marks export (--format moodle or canvas). See docs/marking.md. export writes one candidate's
subject-access archive (docs/records.md).`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCandidatesImportCmd(), newCandidatesExportCmd())
	return cmd
}

func newCandidatesImportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "import ROSTER.csv",
		Short: "Add or update candidates from a CSV (header: " + "candidate_id,name,email,username,sis_user_id,sis_login_id,lms_user_id,section; all but candidate_id optional)",
		Long: `Reads a CSV whose first line names its columns, any of candidate_id, name, email, username,
sis_user_id, sis_login_id, lms_user_id, section, in any order (candidate_id required). A
candidate already in the roster is updated. The file is imported whole or not at all: the first
problem (an unknown column, a row without candidate_id, an id twice) is reported with its line.
"-" reads standard input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var r io.Reader = cmd.InOrStdin()
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			cs, err := sessions.ParseCandidatesCSV(r)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.PutCandidates(cmd.Context(), cs); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%d candidates imported\n", len(cs))
			return err
		},
	}
}
