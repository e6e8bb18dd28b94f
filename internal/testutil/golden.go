// Package testutil holds the helpers every package's tests share: golden files behind one
// -update flag, waits with a deadline and a useful failure message, and screen waits for
// the console's end-to-end tests. Only test files import it.
package testutil

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
	// teatest's golden package registers -update unconditionally when a test binary links it
	// (the console's tests). Importing it here makes it initialise first in every binary, so
	// there is exactly one -update flag and Updating reads it.
	_ "github.com/charmbracelet/x/exp/golden"
)

// Updating reports whether the test binary runs with -update: golden files are rewritten
// from the current output instead of compared.
func Updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Golden compares got with the golden file at path (relative to the package directory, e.g.
// testdata/golden/x.txt). Under -update it writes got there first (creating directories). A
// missing file fails the test with the command that creates it; a difference fails it with a
// unified diff, control characters and escape sequences shown quoted.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run go test -run '%s' -update to create it)", err, t.Name())
		return
	}
	if bytes.Equal(want, got) {
		return
	}
	t.Errorf("%s differs from the golden file %s (check the change, then go test -run '%s' -update):\n%s",
		t.Name(), path, t.Name(), Diff(path, "got", want, got))
}

// Diff is a unified diff from want to got, each line quoted so control characters and ANSI
// escapes are visible (a missing final newline is marked as diff marks it).
func Diff(wantName, gotName string, want, got []byte) string {
	return udiff.Unified(wantName, gotName, quoteLines(want), quoteLines(got))
}

func quoteLines(b []byte) string {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		q := strconv.Quote(l)
		lines[i] = q[1 : len(q)-1]
	}
	return strings.Join(lines, "\n")
}
