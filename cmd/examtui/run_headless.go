package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/runtime"
)

// exitHeadlessInterrupted is the exit status of a headless run that was interrupted.
const exitHeadlessInterrupted = app.ExitInterrupted

// runHeadless runs a local exam with no console (app.Exam.RunHeadless): answers and operator
// commands from stdin, every event on stdout once it is committed.
func runHeadless(cmd *cobra.Command, specPath string, o runOptions) error {
	ctx := cmd.Context()
	dataDir, log, closeLog, err := setup()
	if err != nil {
		return err
	}
	defer closeLog()

	x, err := openExam(ctx, specPath, o, runtime.SourceTyped, dataDir, log)
	if err != nil {
		return err
	}
	defer x.Close()
	return headlessExit(x.RunHeadless(ctx, cmd.InOrStdin(), app.HeadlessConfig{
		Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr(), JSON: o.jsonOut, Log: log}))
}

// headlessExit turns a headless run's exit status into the command's.
func headlessExit(err error) error {
	var ee *app.ExitError
	if errors.As(err, &ee) {
		return &exitError{code: ee.Code, msg: ee.Msg}
	}
	return err
}
