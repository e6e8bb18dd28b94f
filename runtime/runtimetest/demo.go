// Package runtimetest holds what the tests of the runtime (runtime, runtime/llm, runtime/offline)
// and of its users (sessions) share. Tests import it; the product does not.
package runtimetest

import (
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/spec"
)

// DemoExam compiles the built-in demo exam, its source first passed through edit when edit is
// not nil (a policy added, a budget changed), and fails the test if it does not compile.
func DemoExam(t testing.TB, edit func(string) string) *spec.Exam {
	t.Helper()
	src := string(examples.Demo())
	if edit != nil {
		src = edit(src)
	}
	exam, diags, err := spec.Compile(examples.DemoSpecName, []byte(src))
	if err != nil {
		t.Fatalf("compile the demo exam: %v\n%v", err, diags)
	}
	return exam
}
