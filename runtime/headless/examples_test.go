package headless_test

import (
	"strings"
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// exampleScripts lists the candidate scripts shipped in the binary (every example but the exams).
func exampleScripts(t *testing.T) []string {
	t.Helper()
	out := examples.Scripts()
	if len(out) < 8 {
		t.Fatalf("only %d example scripts: %v", len(out), out)
	}
	return out
}

// TestExampleScripts runs every shipped script, embedded and from disk; each passes, so each
// of its exact expectations held.
func TestExampleScripts(t *testing.T) {
	for _, name := range exampleScripts(t) {
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			s := loadExample(t, name)
			if len(s.Turns) == 0 {
				t.Fatal("script without turns")
			}
			r := runScript(t, s, headless.Options{})
			if !r.Passed {
				t.Fatalf("%s failed:\n%s", name, report(r))
			}
			if err := runtimetest.CheckAssessedOnce(r.Log); err != nil {
				t.Fatal(err)
			}
			if disk := runFile(t, "../../examples/"+name); !disk.Passed {
				t.Fatalf("%s from disk failed:\n%s", name, report(disk))
			}
		})
	}
}
