package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/runtime/headless"
)

// testCoverOptions are the coverage flags of `examtui test`.
type testCoverOptions struct {
	on  bool
	out string
	min float64
	set headless.CoverageSet
}

func (o *testCoverOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&o.on, "cover", false, "report which nodes, transitions, signals, rubric levels, guardrails, filters and commands the scripts exercised")
	f.StringVar(&o.out, "cover-out", "", "write the coverage report to `FILE`.json and FILE.md (implies --cover)")
	f.Float64Var(&o.min, "cover-min", 0, "fail (exit 1) when a spec's total coverage is under `N` percent (implies --cover)")
}

func (o *testCoverOptions) enabled() bool { return o.on || o.out != "" || o.min > 0 }

// add counts one script's run into its spec's coverage.
func (o *testCoverOptions) add(arg string, r *headless.Result) error {
	if !o.enabled() || r == nil {
		return nil
	}
	s, err := loadScript(arg)
	if err != nil {
		return err
	}
	return o.set.Add(s, r)
}

// finish prints the report, writes the files and applies --cover-min.
func (o *testCoverOptions) finish(cmd *cobra.Command, textOut bool) error {
	if !o.enabled() {
		return nil
	}
	specs := o.set.Specs()
	if textOut {
		fmt.Fprintln(cmd.OutOrStdout())
		if err := headless.WriteCoverageText(cmd.OutOrStdout(), specs); err != nil {
			return err
		}
	}
	if o.out != "" {
		base := strings.TrimSuffix(strings.TrimSuffix(o.out, ".json"), ".md")
		for _, w := range []struct {
			ext   string
			write func(*os.File) error
		}{
			{".json", func(f *os.File) error { return headless.WriteCoverageJSON(f, specs) }},
			{".md", func(f *os.File) error { return headless.WriteCoverageMarkdown(f, specs) }},
		} {
			if err := writeReport(base+w.ext, w.write); err != nil {
				return fmt.Errorf("coverage report: %w", err)
			}
		}
	}
	if o.min > 0 {
		if low := o.set.Below(o.min); len(low) > 0 {
			names := make([]string, len(low))
			for i, c := range low {
				names[i] = fmt.Sprintf("%s %.1f%%", c.ExamID, c.Percent)
			}
			return &exitError{code: 1, msg: fmt.Sprintf("coverage under %g%%: %s", o.min, strings.Join(names, ", "))}
		}
	}
	return nil
}

// writeReport writes a report file through a temporary file in the same directory.
func writeReport(path string, write func(*os.File) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".cover-*")
	if err != nil {
		return err
	}
	werr := write(f)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return werr
	}
	return os.Rename(f.Name(), path)
}
