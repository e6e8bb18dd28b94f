package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// InstalledTool returns a tool the Makefile installs under <module root>/bin (rel, e.g.
// "mermaid/check.mjs"), or $env when set; a tool not installed fails the test naming the make
// target that installs it.
func InstalledTool(t testing.TB, env, rel, makeTarget string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "bin", rel)
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("%s is not installed (run `make %s` or set %s): %v", rel, makeTarget, env, err)
			}
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("module root not found")
		}
		dir = parent
	}
}
