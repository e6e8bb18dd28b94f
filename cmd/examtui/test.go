package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/sessions"
)

// testOptions are the flags of `examtui test`.
type testOptions struct {
	jsonOut bool
	junit   string
	noStore bool
	model   string
	audio   testAudioOptions  // --audio (test_audio.go)
	room    testRoomOptions   // --room-url (test_room.go)
	cover   testCoverOptions  // --cover (test_cover.go)
	update  testUpdateOptions // --update (test_update.go)
}

func newTestCmd() *cobra.Command {
	var o testOptions
	cmd := &cobra.Command{
		Use:   "test SCRIPT...",
		Short: "Run candidate scripts against their exams and check every expectation",
		Long: `test plays candidate scripts (docs/testing.md) against their exams on a
virtual clock, with the examiner each script names, and checks every expectation exactly.
It prints a report per script and exits 1 when any expectation fails, 2 when a script cannot
run. A SCRIPT that is not a file but names a built-in example (hotel-rehearsal.yaml) runs that.

A script's "examiner: llm" uses the same settings as "examtui run --examiner llm"
(OPENAI_BASE_URL, OPENAI_API_KEY, --model or EXAMTUI_MODEL, the EXAMTUI_LLM_* limits) and
fails over to the offline examiner after the same number of failed turns. Every run is stored as a session
(see "examtui sessions list") unless --no-store is given.`,
		Example: "  examtui test hotel-rehearsal.yaml\n  examtui test --junit report.xml scripts/*.yaml",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			jsonOut, junit := o.jsonOut, o.junit
			began := time.Now()
			env, err := newTestEnv(cmd, o)
			if err != nil {
				return err
			}
			defer env.close()
			var results []*headless.Result
			var runErrs []headless.RunError
			for _, arg := range args {
				r, err := env.runScript(cmd, arg)
				if err != nil {
					runErrs = append(runErrs, headless.RunError{Script: arg, Err: err})
					fmt.Fprintf(cmd.ErrOrStderr(), "ERROR %s: %v\n", arg, err)
					continue
				}
				results = append(results, r)
				if err := o.cover.add(arg, r); err != nil {
					return err
				}
				if _, err := o.update.apply(cmd, arg, r); err != nil {
					return err
				}
				if !jsonOut {
					if err := headless.WriteText(cmd.OutOrStdout(), r); err != nil {
						return err
					}
				}
			}
			if jsonOut {
				if err := headless.WriteJSON(cmd.OutOrStdout(), results); err != nil {
					return err
				}
			}
			if junit != "" {
				f, err := os.Create(junit)
				if err != nil {
					return fmt.Errorf("junit report: %w", err)
				}
				werr := headless.WriteJUnit(f, results, runErrs, headless.WithJUnitTimestamp(began))
				if cerr := f.Close(); werr == nil {
					werr = cerr
				}
				if werr != nil {
					return fmt.Errorf("junit report %s: %w", junit, werr)
				}
			}
			if err := o.cover.finish(cmd, !jsonOut); err != nil {
				return err
			}
			failed := 0
			for _, r := range results {
				if !r.Passed && !o.update.on { // --update rewrote its expectations: it passes now
					failed++
				}
			}
			switch {
			case len(runErrs) > 0:
				return &exitError{code: 2, msg: fmt.Sprintf("%d of %d scripts could not run, %d failed", len(runErrs), len(args), failed)}
			case failed > 0:
				return &exitError{code: 1, msg: fmt.Sprintf("%d of %d scripts failed", failed, len(args))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.jsonOut, "json", false, "print the results as JSON instead of text")
	f.StringVar(&o.junit, "junit", "", "also write a JUnit XML report to `FILE` (Ant JUnit schema; Jenkins, GitLab and others read it)")
	f.BoolVar(&o.noStore, "no-store", false, "do not store the runs as sessions")
	f.StringVar(&o.model, "model", "", "LLM model for scripts with examiner: llm (default $EXAMTUI_MODEL or gpt-4o-mini)")
	o.audio.addFlags(cmd)
	o.room.addFlags(cmd)
	o.cover.addFlags(cmd)
	o.update.addFlags(cmd)
	return cmd
}

// testEnv is what every script of one `examtui test` run shares.
type testEnv struct {
	o     testOptions
	log   *slog.Logger
	store *sessions.Store // nil with --no-store
	close func()
}

func newTestEnv(cmd *cobra.Command, o testOptions) (*testEnv, error) {
	if o.room.enabled() {
		if _, err := o.room.options(nil); err != nil { // bad flags fail before any script runs
			return nil, err
		}
	}
	dataDir, log, closeLog, err := setup()
	if err != nil {
		return nil, err
	}
	env := &testEnv{o: o, log: log, close: closeLog}
	events, err := env.o.room.openEvents()
	if err != nil {
		closeLog()
		return nil, err
	}
	if events != nil {
		env.close = func() { events.Close(); closeLog() }
	}
	if !o.noStore {
		st, err := app.OpenStore(cmd.Context(), app.StoreTarget(globals.store, dataDir), log)
		if err != nil {
			env.close()
			return nil, err
		}
		env.store = st
		prev := env.close
		env.close = func() { st.Close(); prev() }
	}
	return env, nil
}

// runScript loads one script (a file, or a built-in example), runs it and stores it as a session.
func (env *testEnv) runScript(cmd *cobra.Command, arg string) (*headless.Result, error) {
	ctx := cmd.Context()
	s, err := loadScript(arg)
	if err != nil {
		return nil, err
	}
	// A room check refuses what its own recogniser cannot hear (roomcheck): --audio-stt is not its.
	if err := env.o.audio.refuse(s); err != nil && !env.o.room.enabled() {
		return nil, err
	}
	opts := headless.Options{
		Logger: env.log,
		NewExaminer: func(kind string) (runtime.Examiner, []runtime.Option, error) {
			if kind == "" {
				kind = app.ExaminerOffline
			}
			return app.BuildExaminer(app.ExaminerSetup{Kind: kind, Model: env.o.model}, env.log)
		},
		ControllerOptions: []runtime.Option{runtime.WithLanguagePacks(languagePacks())},
	}
	if env.store != nil {
		// A scripted run lives on the virtual clock; its session starts where the clock does,
		// so durations and replays read true. A room run is on the wall clock.
		start := headless.StartFor(s, time.Time{})
		if env.o.room.enabled() {
			start = time.Now()
		} else {
			opts.Start = start
		}
		exam, err := s.CompileSpec()
		if err != nil {
			return nil, err
		}
		input := runtime.SourceTyped
		switch {
		case env.o.room.enabled():
			input = runtime.SourceRoom
		case env.o.audio.enabled: // the turns were heard through the voice path
			input = runtime.SourceMic
		}
		sess, err := env.store.Create(ctx, sessions.Meta{
			Exam: exam, Candidate: sessions.ScriptCandidatePrefix + s.Name(), Examiner: s.Examiner, Input: input, SpecPath: s.SpecPath(),
			StartedAt: start,
		})
		if err != nil {
			return nil, fmt.Errorf("create session: %w", err)
		}
		j, err := env.store.Journal(ctx, sess.ID)
		if err != nil {
			return nil, err
		}
		defer j.Close()
		opts.Sink, opts.SessionID = j, sess.ID
		// A stored run draws balanced variants as a live exam on this store would.
		opts.ControllerOptions = append(opts.ControllerOptions, runtime.WithVariantCounter(env.store))
	}
	cleanup, err := env.o.audio.apply(ctx, &opts, env.log)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if env.o.room.enabled() {
		return env.o.room.run(ctx, s, opts, env.log)
	}
	return headless.Run(ctx, s, opts)
}

// loadScript reads a script file, or a built-in example when no such file exists.
func loadScript(arg string) (*headless.Script, error) {
	if _, statErr := os.Stat(arg); errors.Is(statErr, fs.ErrNotExist) {
		if _, exErr := fs.Stat(examples.FS, arg); exErr == nil {
			return headless.LoadScriptFS(examples.FS, arg)
		}
		return nil, statErr
	}
	return headless.LoadScript(arg)
}
