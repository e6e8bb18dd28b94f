package main

import (
	"errors"

	"github.com/spf13/cobra"
)

var errNotBuilt = errors.New("not built yet")

// runDemo opens the console on the built-in demo exam (owned by the console work).
func runDemo(*cobra.Command) error { return errNotBuilt }
