package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/sessions"
)

func newValidateArtifactCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate-artifact FILE...",
		Short: "Check runresult artifacts strictly (exit 1 listing every problem)",
		Long: `Check runresult artifacts (examtui sessions export --format runresult) against the
bounded v1 shape: required fields and types, outcome and error_label rules, the four event
types with their fields, short bounded content, no transcript dumps or audio. Unknown
top-level fields are ignored. "-" reads standard input.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			bad := 0
			for _, path := range args {
				var data []byte
				var err error
				if path == "-" {
					data, err = io.ReadAll(cmd.InOrStdin())
				} else {
					data, err = os.ReadFile(path)
				}
				if err != nil {
					fmt.Fprintf(out, "%s: %v\n", path, err)
					bad++
					continue
				}
				problems := sessions.ValidateArtifact(data)
				if len(problems) == 0 {
					fmt.Fprintf(out, "%s: ok\n", path)
					continue
				}
				bad++
				fmt.Fprintf(out, "%s: %d problem(s)\n", path, len(problems))
				for _, p := range problems {
					fmt.Fprintf(out, "  %s\n", p)
				}
			}
			if bad > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
}
