package main

import "github.com/spf13/cobra"

// TODO(owner of this command): replace this placeholder with the real command.
func newSchemaCmd() *cobra.Command {
	return &cobra.Command{Use: "schema", Short: "(not built yet)", Hidden: true,
		RunE: func(*cobra.Command, []string) error { return errNotBuilt }}
}
