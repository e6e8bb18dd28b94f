package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// runHeadless runs a local exam with no console: answers from stdin, events to stdout.
func runHeadless(cmd *cobra.Command, specPath string, o runOptions) error {
	return errors.New("--headless is not wired yet")
}
