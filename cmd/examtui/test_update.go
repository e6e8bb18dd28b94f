package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/runtime/headless"
)

// testUpdateOptions is `examtui test --update`.
type testUpdateOptions struct{ on bool }

func (o *testUpdateOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.on, "update", false, "rewrite each script's expectations (state, visits, counts, decisions) from this run, after you reviewed the differences")
}

// apply rewrites the script file's expect block from its run and reports whether it did. A
// built-in example is not a file and cannot be rewritten. A rewritten script counts as passed:
// its expectations are now what the exam does, and the report above it shows what changed.
func (o *testUpdateOptions) apply(cmd *cobra.Command, arg string, r *headless.Result) (rewritten bool, err error) {
	if !o.on || r == nil {
		return false, nil
	}
	if _, err := os.Stat(arg); errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("--update: %s is a built-in example, not a file: copy it first", arg)
	}
	s, lerr := headless.LoadScript(arg)
	if lerr != nil {
		return false, lerr
	}
	if uerr := headless.UpdateScriptFile(arg, s, r); uerr != nil {
		return false, fmt.Errorf("--update %s: %w", arg, uerr)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "updated the expectations of %s\n", arg)
	return true, nil
}
