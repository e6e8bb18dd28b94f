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

// apply rewrites the script file's expect block from its run. A built-in example is not a file
// and cannot be rewritten.
func (o *testUpdateOptions) apply(cmd *cobra.Command, arg string, r *headless.Result) error {
	if !o.on || r == nil {
		return nil
	}
	if _, err := os.Stat(arg); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--update: %s is a built-in example, not a file: copy it first", arg)
	}
	s, err := headless.LoadScript(arg)
	if err != nil {
		return err
	}
	if err := headless.UpdateScriptFile(arg, s, r); err != nil {
		return fmt.Errorf("--update %s: %w", arg, err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "updated the expectations of %s\n", arg)
	return nil
}
