package spec

import (
	"os"
	"testing"
)

const examplePath = "../examples/hotel-breakfast.yaml"

func exampleSrc(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustCompile compiles src as the file name; an error fails the test with the diagnostics.
func mustCompile(t testing.TB, name string, src []byte) (*Exam, Diagnostics) {
	t.Helper()
	e, diags, err := Compile(name, src)
	if err != nil {
		t.Fatalf("%s does not compile: %v\n%s", name, err, diags)
	}
	return e, diags
}

func compileExample(t testing.TB) *Exam {
	t.Helper()
	e, diags := mustCompile(t, "hotel-breakfast.yaml", exampleSrc(t))
	if len(diags) != 0 {
		t.Fatalf("example has diagnostics:\n%s", diags)
	}
	return e
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
