package spec

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

const examplePath = "../examples/hotel-breakfast.yaml"

func exampleSrc(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compileExample(t testing.TB) *Exam {
	t.Helper()
	e, diags, err := Compile("hotel-breakfast.yaml", exampleSrc(t))
	if err != nil {
		t.Fatalf("example does not compile: %v\n%s", err, diags)
	}
	if len(diags) != 0 {
		t.Fatalf("example has diagnostics:\n%s", diags)
	}
	return e
}

// golden compares got with testdata/golden/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./spec -run %s -update)", err, t.Name())
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from golden file %s (run with -update if intended)\n--- got ---\n%s", t.Name(), path, firstDiff(string(want), string(got)))
	}
}

func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(i-200, 0)
	hi := min(i+200, len(got))
	return got[lo:hi]
}
