package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/llm"
)

// TestTestCommandFailsOverLikeRun: a rehearsal with `examiner: llm` against an endpoint that
// fails every call gives up on it after the documented number of failed turns
// (llm.DefaultFailoverAfter) and finishes on the offline examiner, exactly as `run --headless`
// does with the same answers: the two sessions' decision traces are equal, and both hold the
// switch with the failed turns before it and the offline examiner's decisions after it.
func TestTestCommandFailsOverLikeRun(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour { return openaitest.Status(500) }))
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv(llm.EnvFailoverAfter, "") // the default
	dir := t.TempDir()
	exam, err := os.ReadFile("../../examples/hotel-breakfast.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "exam.yaml"), exam, 0o644); err != nil {
		t.Fatal(err)
	}
	hello := "Hello, I'm Priya and I'm on the hospitality management course."
	answers := append(slices.Repeat([]string{hello}, llm.DefaultFailoverAfter), crashScript...)
	answers = slices.DeleteFunc(answers, func(s string) bool { return strings.HasPrefix(s, "/") }) // answers only
	var script strings.Builder
	script.WriteString("spec: exam.yaml\nexaminer: llm\nturns:\n")
	for _, a := range answers {
		script.WriteString("  - say: " + strconv.Quote(a) + "\n")
	}
	script.WriteString("  - control: end\n")
	scriptPath := filepath.Join(dir, "failing-llm.yaml")
	if err := os.WriteFile(scriptPath, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	testDir, runDir := filepath.Join(dir, "test"), filepath.Join(dir, "run")
	out, errOut, err := runCmd(t, "", "--data-dir", testDir, "--log-file", filepath.Join(dir, "test.log"), "test", scriptPath)
	if err != nil {
		t.Fatalf("examtui test: %v\n%s\n%s", err, out, errOut)
	}
	if _, errOut, err := runCmd(t, strings.Join(answers, "\n")+"\n/end\n", "--data-dir", runDir, "--log-file", filepath.Join(dir, "run.log"),
		"run", filepath.Join(dir, "exam.yaml"), "--headless", "--examiner", "llm"); err != nil {
		t.Fatalf("run --headless: %v\n%s", err, errOut)
	}
	rehearsal, live := storedRun(t, testDir), storedRun(t, runDir)
	if d := runtime.TraceDiff(live.trace, rehearsal.trace); d != "" {
		t.Fatalf("`examtui test` decided otherwise than `run --headless` (- run, + test):\n%s", d)
	}
	for name, r := range map[string]failoverRun{"test": rehearsal, "run": live} {
		switched := slices.IndexFunc(r.trace, func(l string) bool { return strings.HasPrefix(l, "examiner_switched ") })
		if switched < 0 || !strings.Contains(r.trace[switched], " -> offline ") {
			t.Fatalf("%s: no switch to the offline examiner in the trace:\n%s", name, strings.Join(r.trace, "\n"))
		}
		if r.systemErrors != llm.DefaultFailoverAfter || r.errorsBeforeSwitch != llm.DefaultFailoverAfter {
			t.Fatalf("%s: %d system_error events (%d before the switch), want %d, all before it",
				name, r.systemErrors, r.errorsBeforeSwitch, llm.DefaultFailoverAfter)
		}
		if !slices.ContainsFunc(r.trace[switched:], func(l string) bool { return strings.HasPrefix(l, "evidence ") }) {
			t.Fatalf("%s: the offline examiner decided nothing after the switch:\n%s", name, strings.Join(r.trace, "\n"))
		}
	}
}

// failoverRun is what TestTestCommandFailsOverLikeRun reads from a stored session.
type failoverRun struct {
	trace              []string
	systemErrors       int
	errorsBeforeSwitch int
}

// storedRun reads the one session stored in dataDir.
func storedRun(t *testing.T, dataDir string) failoverRun {
	t.Helper()
	ctx := context.Background()
	st := apptest.OpenStore(t, dataDir)
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions in %s: %v %v", dataDir, list, err)
	}
	var events []runtime.Event
	var r failoverRun
	switched := false
	for ev, err := range st.Events(ctx, list[0].ID, 1) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
		if _, ok := decodeAs[*runtime.ExaminerSwitchedPayload](ev); ok {
			switched = true
		}
		if _, ok := decodeAs[*runtime.SystemErrorPayload](ev); ok {
			r.systemErrors++
			if !switched {
				r.errorsBeforeSwitch++
			}
		}
	}
	if r.trace, err = runtime.DecisionTrace(events); err != nil {
		t.Fatal(err)
	}
	return r
}
