package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/offline"
)

// testExaminer builds the examiner a candidate script names. Only "offline" is wired here;
// the LLM examiner is wired by replacing this hook (runtime/llm).
var testExaminer = func(kind string) (runtime.Examiner, error) {
	if kind == "offline" {
		return offline.New()
	}
	return nil, fmt.Errorf("%w: %q", headless.ErrExaminerKind, kind)
}

// testSink, when set, stores every scripted run's events (a session store).
var testSink func(script string) (runtime.Sink, error)

func newTestCmd() *cobra.Command {
	var (
		jsonOut bool
		junit   string
	)
	cmd := &cobra.Command{
		Use:   "test SCRIPT...",
		Short: "Run candidate scripts against their exams and check every expectation",
		Long: `test plays candidate scripts (exam-spec.md, "Candidate scripts") against their exams on a
virtual clock, with the examiner each script names, and checks every expectation exactly.
It prints a report per script and exits 1 when any expectation fails, 2 when a script cannot
run. A SCRIPT that is not a file but names a built-in example (hotel-rehearsal.yaml) runs that.`,
		Example: "  examtui test hotel-rehearsal.yaml\n  examtui test --junit report.xml scripts/*.yaml",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var results []*headless.Result
			var runErrs []headless.RunError
			for _, arg := range args {
				r, err := runScript(cmd, arg)
				if err != nil {
					runErrs = append(runErrs, headless.RunError{Script: arg, Err: err})
					fmt.Fprintf(cmd.ErrOrStderr(), "ERROR %s: %v\n", arg, err)
					continue
				}
				results = append(results, r)
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
				werr := headless.WriteJUnit(f, results, runErrs)
				if cerr := f.Close(); werr == nil {
					werr = cerr
				}
				if werr != nil {
					return fmt.Errorf("junit report %s: %w", junit, werr)
				}
			}
			failed := 0
			for _, r := range results {
				if !r.Passed {
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
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the results as JSON instead of text")
	cmd.Flags().StringVar(&junit, "junit", "", "also write a JUnit XML report to `FILE`")
	return cmd
}

// runScript loads one script (a file, or a built-in example) and runs it.
func runScript(cmd *cobra.Command, arg string) (*headless.Result, error) {
	var s *headless.Script
	var err error
	if _, statErr := os.Stat(arg); errors.Is(statErr, fs.ErrNotExist) {
		if _, exErr := fs.Stat(examples.FS, arg); exErr == nil {
			s, err = headless.LoadScriptFS(examples.FS, arg)
		} else {
			return nil, statErr
		}
	} else {
		s, err = headless.LoadScript(arg)
	}
	if err != nil {
		return nil, err
	}
	opts := headless.Options{NewExaminer: testExaminer}
	if testSink != nil {
		sink, err := testSink(arg)
		if err != nil {
			return nil, err
		}
		opts.Sink = sink
	}
	return headless.Run(cmd.Context(), s, opts)
}
