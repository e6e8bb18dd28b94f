package runtimetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime/headless"
)

// CandidateScript is one candidate script of the repository, loaded from disk.
type CandidateScript struct {
	Path   string // as loaded (under root)
	Rel    string // relative to the repository root, e.g. examples/hotel-skip.yaml
	Script *headless.Script
}

// CandidateScripts loads every candidate script of the repository whose root is root (a
// relative path from the test's package, such as "../.."): the YAML files of examples/ and
// runtime/headless/testdata/ that have turns; the others are specs. A script that does not load
// fails the test, and so does finding fewer than 20: the parity suites run over all of them.
func CandidateScripts(t testing.TB, root string) []CandidateScript {
	t.Helper()
	var out []CandidateScript
	for _, dir := range []string{"examples", "runtime/headless/testdata"} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), "\nturns:") {
				continue // a spec
			}
			s, err := headless.LoadScript(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, CandidateScript{Path: f, Rel: filepath.ToSlash(filepath.Join(dir, filepath.Base(f))), Script: s})
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d candidate scripts found under %s", len(out), root)
	}
	return out
}
