package runtimetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/spec"
)

// RehearsalAnswers are the candidate's answers in the example rehearsal
// (examples/hotel-rehearsal.yaml, read through testutil.RehearsalSaid) without its request to
// repeat the question: with the offline examiner they take the demo exam (DemoExam) from the
// welcome to its end. Tests must not change it.
var RehearsalAnswers = slices.DeleteFunc(testutil.RehearsalSaid(), func(line string) bool {
	return strings.Contains(line, "repeat the question")
})

// Rehearsal loads the example rehearsal script (testutil.RehearsalScript, from examples.FS)
// and compiles the exam it plays, failing the test on an error: the set-up of the tests that
// record or play the rehearsal with the real controller.
func Rehearsal(t testing.TB) (*headless.Script, *spec.Exam) {
	t.Helper()
	return Example(t, testutil.RehearsalScript)
}

// ScriptsByStrength are the example exam's candidate scripts of a strong, a middling and a weak
// candidate, strongest first: the offline examiner reaches higher levels on the stronger.
var ScriptsByStrength = []string{"hotel-strong.yaml", "hotel-middling.yaml", "hotel-weak.yaml"}

// Example loads the candidate script name from examples.FS and compiles the exam it plays,
// failing the test on an error.
func Example(t testing.TB, name string) (*headless.Script, *spec.Exam) {
	t.Helper()
	script, err := headless.LoadScriptFS(examples.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	exam, err := script.CompileSpec()
	if err != nil {
		t.Fatal(err)
	}
	return script, exam
}
