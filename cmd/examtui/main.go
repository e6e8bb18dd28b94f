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
	"time"

	"github.com/examtui/examtui/internal/httpbound"
	"github.com/examtui/examtui/internal/textsafe"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// Replies read through Go's default transport (the LiveKit server API) are bounded too.
	httpbound.BoundDefaultTransport()
	root := newRootCmd()
	grace := signalGrace
	if c, _, err := root.Find(os.Args[1:]); err == nil && c.Annotations[annotDrains] == "true" {
		grace = 0
	}
	ctx, stop := stopOnSignal(context.Background(), grace)
	err := root.ExecuteContext(ctx)
	stop()
	if err != nil {
		os.Exit(printError(os.Stderr, err))
	}
}

// signalGrace is how long a command has to stop after SIGINT or SIGTERM before the process
// ends anyway: every exam is journalled as it goes, so what a graceful stop adds is tidiness.
const signalGrace = 5 * time.Second

// annotDrains marks a command that keeps working after a signal on purpose, bounded by its own
// flag (the worker's --drain-timeout): it gets no grace timer, only the second signal.
const annotDrains = "examtui.drains"

// stopOnSignal returns a context that SIGINT, SIGTERM or SIGHUP (the terminal closed) cancels. Catching a signal takes away
// its default action, so work that never looks at the context (a parser, a read of a pipe
// that never ends) would keep the process alive: a second signal, or the grace period after
// the first (none when grace is 0), ends it with the usual 128+signal status.
func stopOnSignal(parent context.Context, grace time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		var first os.Signal
		select {
		case first = <-sigs:
		case <-done:
			return
		}
		cancel()
		var timeout <-chan time.Time
		if grace > 0 {
			timeout = time.After(grace)
		}
		select {
		case <-sigs:
		case <-timeout:
		case <-done:
			return
		}
		code := 130
		switch first {
		case syscall.SIGTERM:
			code = 143
		case syscall.SIGHUP:
			code = 129
		}
		fmt.Fprintf(os.Stderr, "examtui: stopped by %v\n", first)
		os.Exit(code)
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// printError prints the command's error and returns the exit status. Errors can quote what a
// library received (a server's "invalid token: eyJ…"): what the user sees is masked as the
// logs are.
func printError(w io.Writer, err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(w, textsafe.MaskSecrets(ee.msg))
		}
		return ee.code
	}
	fmt.Fprintln(w, "examtui:", textsafe.MaskSecrets(err.Error()))
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
