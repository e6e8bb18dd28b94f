package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/examtui/examtui/internal/pgtest"
)

// TestMain gives the package's tests (and the examtui processes they start, which inherit the
// environment) a data directory of their own, so no test reads or writes the user's sessions,
// and stops the PostgreSQL server the tests may have started (pgtest.Shared). A test that needs
// another data directory sets EXAMTUI_DATA_DIR or passes --data-dir itself.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "examtui-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("EXAMTUI_DATA_DIR", dir)
	os.Unsetenv("EXAMTUI_STORE")
	code := pgtest.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}
