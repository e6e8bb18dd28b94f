package runtimetest

import (
	"slices"
	"strings"

	"github.com/examtui/examtui/internal/testutil"
)

// RehearsalAnswers are the candidate's answers in the example rehearsal
// (examples/hotel-rehearsal.yaml, read through testutil.RehearsalSaid) without its request to
// repeat the question: with the offline examiner they take the demo exam (DemoExam) from the
// welcome to its end. Tests must not change it.
var RehearsalAnswers = slices.DeleteFunc(testutil.RehearsalSaid(), func(line string) bool {
	return strings.Contains(line, "repeat the question")
})
