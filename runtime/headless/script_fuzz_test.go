package headless_test

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime/headless"
)

// FuzzParseScript: any script under 1 MB is parsed or refused within a second and 50 MB, with
// a positioned error (a script of nested brackets took seconds and gigabytes in the slower YAML
// parser the script loader uses for its positions).
func FuzzParseScript(f *testing.F) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, s := range []string{
		"spec: exam.yaml\nturns:\n  - say: hello\n",
		"spec: exam.yaml\nturns: " + deep(50000) + "\n",
		"spec: exam.yaml\nturns: " + deep(9000) + " ]\n",
		"spec: exam.yaml\nturns: " + deep(65) + "\n",
		"spec: exam.yaml\nturns:\n" + strings.Repeat("  - say: x\n", 20000),
		"turns: " + strings.Repeat("- ", 100000) + "x\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) >= 1<<20 {
			return
		}
		var err error
		testutil.WithinBudget(t, "ParseScript", time.Second, 50<<20, func() { _, err = headless.ParseScript("s.yaml", src) })
		if err != nil && !strings.Contains(err.Error(), "s.yaml") {
			t.Fatalf("error without the script's name: %v", err)
		}
	})
}
