package headless_test

import (
	"context"
	"fmt"
	"io/fs"
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime/headless"
)

// BenchmarkScriptedExams runs 100 scripted exams (the example rehearsal, offline examiner) per
// operation: compile, play, check.
func BenchmarkScriptedExams(b *testing.B) {
	s := loadExample(b, "hotel-rehearsal.yaml")
	b.ReportAllocs()
	for b.Loop() {
		for range 100 {
			r := runScript(b, s, headless.Options{})
			if !r.Passed {
				b.Fatalf("rehearsal failed: %+v", r.Failures)
			}
		}
	}
}

// BenchmarkScriptedExamsMixed runs 100 scripted exams per operation, cycling through every
// shipped example script, on GOMAXPROCS workers (the 2 cores of the target machine).
func BenchmarkScriptedExamsMixed(b *testing.B) {
	names, err := fs.Glob(examples.FS, "hotel-*.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var scripts []*headless.Script
	for _, n := range names {
		if n == examples.DemoSpecName {
			continue
		}
		s := loadExample(b, n)
		scripts = append(scripts, s)
	}
	workers := goruntime.GOMAXPROCS(0)
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < 100; i += workers {
					s := scripts[i%len(scripts)]
					r, err := headless.Run(context.Background(), s, headless.Options{})
					if err == nil && !r.Passed {
						err = fmt.Errorf("%s failed: %+v", s.Name(), r.Failures)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}
}
