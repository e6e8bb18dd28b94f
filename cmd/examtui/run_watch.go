package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// watchInterval is how often `run --watch` looks at the spec file. Polling (rather than
// inotify) follows editors that save by writing a new file and renaming it over the old one.
const watchInterval = 250 * time.Millisecond

// specReloader is the part of the controller a watch needs.
type specReloader interface {
	RejectSpec(path string, diags []string) error
	StageSpec(path string, exam *spec.Exam) error
}

// watchSpec recompiles path whenever its content changes: an edit that does not compile is
// recorded as rejected with its positioned errors (the exam keeps its version); one that
// compiles is staged for the next node entry. It returns a function that stops the watch and
// waits for it.
func watchSpec(ctx context.Context, path string, ctrl specReloader, log *slog.Logger) (stop func()) {
	last, _ := os.ReadFile(path) // the version the exam was opened with
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		app.Every(ctx, watchInterval, func() bool {
			src, err := spec.ReadSourceFile(path)
			if err != nil || bytes.Equal(src, last) {
				return true // mid-save (the file briefly gone) or unchanged
			}
			last = src
			if err := reloadSpec(path, src, ctrl); err != nil {
				if errors.Is(err, runtime.ErrExamOver) || errors.Is(err, runtime.ErrClosed) {
					return false
				}
				log.Warn("spec reload", "path", path, "err", err)
			}
			return true
		})
	}()
	return func() { cancel(); wg.Wait() }
}

// reloadSpec compiles one version of the spec and hands it to the controller.
func reloadSpec(path string, src []byte, ctrl specReloader) error {
	exam, diags, err := spec.Compile(path, src)
	if err != nil {
		msgs := make([]string, 0, len(diags))
		for _, d := range diags.Errors() {
			msgs = append(msgs, d.String())
		}
		if len(msgs) == 0 {
			msgs = append(msgs, err.Error())
		}
		return ctrl.RejectSpec(path, msgs)
	}
	if err := ctrl.StageSpec(path, exam); err != nil {
		if errors.Is(err, runtime.ErrSpecReload) || errors.Is(err, runtime.ErrInvalidExam) {
			return ctrl.RejectSpec(path, []string{path + ": " + err.Error()})
		}
		return err
	}
	return nil
}

// checkWatch refuses --watch where there is no file to watch or no console to show it in.
func checkWatch(specPath string, o runOptions) error {
	if !o.watch {
		return nil
	}
	switch {
	case o.headless || o.room.enabled():
		return errors.New("--watch runs in the local console; it cannot be combined with --headless or --room")
	case o.resume != "":
		return errors.New("--watch needs the spec file: give SPEC rather than --resume")
	case specPath == demoArg || specPath == stdinArg:
		return errors.New("--watch needs a spec file to watch, not " + specPath)
	}
	if _, err := os.Stat(specPath); err != nil {
		return err
	}
	return nil
}
