package main

import (
	"github.com/examtui/examtui/spec"
	"github.com/spf13/cobra"
)

func newSchemaCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of the exam specification format",
		Long: `schema prints the JSON Schema (draft 2020-12) of the exam specification format, with a
description for every field. Editors that use yaml-language-server (VS Code's YAML extension,
Neovim, Helix) then complete and check exam files as you type.

The schema and "examtui check" agree on structure: types, required and non-blank fields, what
each node kind needs, null read as "not given", which options each output filter takes. Only
"examtui check" checks references (node, signal, persona and beat-scope names), ids that must
be unique across items, and that every node is reachable, with file:line:col positions. The
schema compiles in ajv's strict mode.`,
		Example: `  examtui schema -o exam.schema.json
  # then, as the first line of an exam file:
  # yaml-language-server: $schema=./exam.schema.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeOutput(cmd, out, 0o644, writeBytes(spec.JSONSchema()))
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	return cmd
}
