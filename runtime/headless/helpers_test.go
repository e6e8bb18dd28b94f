package headless_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime/headless"
)

// loadScript loads the candidate script at path.
func loadScript(t testing.TB, path string) *headless.Script {
	t.Helper()
	s, err := headless.LoadScript(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// loadExample loads the shipped example script name from the binary (examples.FS).
func loadExample(t testing.TB, name string) *headless.Script {
	t.Helper()
	s, err := headless.LoadScriptFS(examples.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runScript runs s with opts; an error (not a failed expectation) fails the test.
func runScript(t testing.TB, s *headless.Script, opts headless.Options) *headless.Result {
	t.Helper()
	r, err := headless.Run(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runFile loads and runs the script at path with the default options.
func runFile(t *testing.T, path string) *headless.Result {
	t.Helper()
	return runScript(t, loadScript(t, path), headless.Options{})
}

func report(r *headless.Result) string {
	var b bytes.Buffer
	_ = headless.WriteText(&b, r)
	return b.String()
}
