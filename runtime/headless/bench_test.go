package headless_test

import (
	"context"
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime/headless"
)

// BenchmarkScriptedExams runs 100 scripted exams (the example rehearsal, offline examiner) per
// operation: compile, play, check.
func BenchmarkScriptedExams(b *testing.B) {
	s, err := headless.LoadScriptFS(examples.FS, "hotel-rehearsal.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for range 100 {
			r, err := headless.Run(context.Background(), s, headless.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if !r.Passed {
				b.Fatalf("rehearsal failed: %+v", r.Failures)
			}
		}
	}
}
