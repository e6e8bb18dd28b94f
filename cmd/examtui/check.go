package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/spec"
	"github.com/spf13/cobra"
)

// stdinArg and demoArg are the FILE arguments that do not name a file.
const (
	stdinArg = "-"
	demoArg  = "demo"
)

// readSpecArg returns the name and bytes of a FILE argument: a path, "-" for standard input,
// or "demo" for the built-in example (when no file of that name exists).
func readSpecArg(cmd *cobra.Command, arg string) (string, []byte, error) {
	switch arg {
	case stdinArg:
		b, err := spec.ReadSource("<stdin>", cmd.InOrStdin())
		return "<stdin>", b, err
	case demoArg:
		if _, err := os.Stat(arg); err != nil {
			return examples.DemoSpecName, examples.Demo(), nil
		}
	}
	b, err := spec.ReadSourceFile(arg)
	return arg, b, err
}

// printDiagnostics writes one diagnostic per line, `file:line:col: severity: message (hint)`.
func printDiagnostics(w io.Writer, diags spec.Diagnostics) {
	for _, d := range diags {
		fmt.Fprintln(w, d.String())
	}
}

// checkResult is one file's entry in `check --json`.
type checkResult struct {
	File        string           `json:"file"`
	OK          bool             `json:"ok"`
	ExamID      string           `json:"examId,omitempty"`
	Nodes       int              `json:"nodes"`
	Signals     int              `json:"signals"`
	Errors      int              `json:"errors"`
	Warnings    int              `json:"warnings"`
	Diagnostics spec.Diagnostics `json:"diagnostics"`
	ReadError   string           `json:"readError,omitempty"`
}

func checkOne(cmd *cobra.Command, arg string) checkResult {
	name, src, err := readSpecArg(cmd, arg)
	if err != nil {
		return checkResult{File: arg, ReadError: err.Error(), Errors: 1, Diagnostics: spec.Diagnostics{}}
	}
	exam, diags, _ := spec.Compile(name, src)
	if exam != nil {
		// The exam's language needs a pack: a shipped one or one the config file adds.
		if s, _ := spec.Load(name, src); s != nil {
			if more := spec.LanguagePackDiagnostics(s, languagePacks()); len(more) > 0 {
				diags = append(diags, more...)
				exam = nil
			}
		}
	}
	r := checkResult{File: name, Diagnostics: diags, Errors: len(diags.Errors()), Warnings: len(diags.Warnings())}
	if r.Diagnostics == nil {
		r.Diagnostics = spec.Diagnostics{}
	}
	if exam != nil {
		r.OK, r.ExamID, r.Nodes, r.Signals = true, exam.ID, len(exam.Nodes), len(exam.Evidence)
	}
	return r
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func newCheckCmd() *cobra.Command {
	var asJSON, strict bool
	cmd := &cobra.Command{
		Use:   "check FILE...",
		Short: "Validate exam specifications and report every problem",
		Long: `check loads, validates and compiles each exam specification (YAML or JSON) and
reports every problem at once, as file:line:col: severity: message, on standard error.
For each file a one-line summary goes to standard output.

It exits 1 if any file has an error (or, with --strict, a warning); warnings alone exit 0.
FILE may be "-" to read standard input, or "demo" for the built-in example exam.`,
		Example: `  examtui check exam.yaml
  examtui check exams/*.yaml
  examtui check --json exam.yaml | jq '.[0].diagnostics'
  cat exam.json | examtui check -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var results []checkResult
			failed := false
			for _, arg := range args {
				r := checkOne(cmd, arg)
				results = append(results, r)
				if r.Errors > 0 || (strict && r.Warnings > 0) {
					failed = true
				}
				if asJSON {
					continue
				}
				if r.ReadError != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: error: %s\n", arg, r.ReadError)
					fmt.Fprintf(cmd.OutOrStdout(), "%s: FAILED: cannot read\n", arg)
					continue
				}
				printDiagnostics(cmd.ErrOrStderr(), r.Diagnostics)
				status := "ok"
				if !r.OK || (strict && r.Warnings > 0) {
					status = "FAILED"
				}
				line := fmt.Sprintf("%s: %s: %s, %s", r.File, status, plural(r.Nodes, "node"), plural(r.Signals, "signal"))
				if !r.OK {
					line = fmt.Sprintf("%s: %s: %s", r.File, status, plural(r.Errors, "error"))
				}
				if r.Warnings > 0 {
					line += ", " + plural(r.Warnings, "warning")
				}
				fmt.Fprintln(cmd.OutOrStdout(), line)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				if err := enc.Encode(results); err != nil {
					return err
				}
			}
			if failed {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON report (one entry per file) to standard output instead of text")
	cmd.Flags().BoolVar(&strict, "strict", false, "treat warnings as errors")
	return cmd
}
