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

func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(i-200, 0)
	hi := min(i+200, len(got))
	return got[lo:hi]
}
