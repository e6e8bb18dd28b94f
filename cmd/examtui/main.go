// Command examtui is a terminal console for interactive oral exams.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/examtui/examtui/sessions"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		os.Exit(printError(os.Stderr, err))
	}
}

// printError prints the command's error and returns the exit status. Errors can quote what a
// library received (a server's "invalid token: eyJ…"): what the user sees is masked as the
// logs are.
func printError(w io.Writer, err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(w, sessions.RedactString(ee.msg))
		}
		return ee.code
	}
	fmt.Fprintln(w, "examtui:", sessions.RedactString(err.Error()))
	return 1
}

// exitError ends the program with a status code, after the command has printed what it had to
// say (e.g. `check` exits 1 after listing every problem).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return fmt.Sprintf("exit status %d", e.code)
}
