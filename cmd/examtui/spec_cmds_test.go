package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/spec"
)

// runCmd runs the real root command with args and returns stdout, stderr and the error.
func runCmd(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	return runCmdContext(context.Background(), stdin, args...)
}

// runCmdContext runs the real root command in-process with ctx (its end is the command's
// SIGINT) and stdin, and returns stdout, stderr and the error.
func runCmdContext(ctx context.Context, stdin string, args ...string) (string, string, error) {
	var out, errOut bytes.Buffer
	err := execRoot(ctx, strings.NewReader(stdin), &out, &errOut, args...)
	return out.String(), errOut.String(), err
}

// execRoot runs the real root command in-process with ctx on the given standard streams (nil
// stdin: the process's), for tests that feed or read them while it runs.
func execRoot(ctx context.Context, stdin io.Reader, out, errOut io.Writer, args ...string) error {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(errOut)
	root.SetIn(stdin)
	return root.ExecuteContext(ctx)
}

// runCmdExpect runs the root command with args and checks its exit code and that stdout and
// stderr contain every one of the given strings; it returns both outputs for further checks.
func runCmdExpect(t *testing.T, stdin string, args []string, code int, stdout, stderr []string) (string, string) {
	t.Helper()
	out, errOut, err := runCmd(t, stdin, args...)
	if got := exitCode(err); got != code {
		t.Fatalf("exit %d (err %v), want %d\nstdout:\n%s\nstderr:\n%s", got, err, code, out, errOut)
	}
	for _, w := range stdout {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	for _, w := range stderr {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	return out, errOut
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return -1
}

const badSpec = `specVersion: "1"
id: bad
title: Bad
persona: {id: ex, roleMessage: "You examine."}
evidence:
  - {signalType: a, description: "Does A", levels: [l1]}
nodes:
  - nodeId: q
    kind: assessment
    scenario: S
    conversationPrompt: Q?
    evidenceSignals: [a, b]
    next: nowhere
`

const warnSpec = `specVersion: "1"
id: warn
title: Warn
persona: {id: ex, roleMessage: "You examine."}
evidence:
  - {signalType: a, description: "Gives a good answer", levels: [l1]}
nodes:
  - {nodeId: q, kind: assessment, scenario: S, conversationPrompt: "Q?", evidenceSignals: [a], next: bye}
  - {nodeId: bye, kind: end}
`

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckCommand(t *testing.T) {
	good := writeTemp(t, "good.yaml", string(examples.Demo()))
	bad := writeTemp(t, "bad.yaml", badSpec)
	warn := writeTemp(t, "warn.yaml", warnSpec)
	cases := []struct {
		name      string
		args      []string
		stdin     string
		code      int
		stdout    []string
		stderr    []string
		notStderr string
	}{
		{"valid file", []string{"check", good}, "", 0, []string{good + ": ok: 4 nodes, 5 signals\n"}, nil, "error"},
		{"demo", []string{"check", "demo"}, "", 0, []string{"hotel-breakfast.yaml: ok: 4 nodes, 5 signals"}, nil, "error"},
		{"stdin", []string{"check", "-"}, string(examples.Demo()), 0, []string{"<stdin>: ok: 4 nodes, 5 signals"}, nil, ""},
		{"invalid file", []string{"check", bad}, "", 1, []string{bad + ": FAILED: 3 errors"},
			[]string{bad + ":8:3: error: the exam has no end node", bad + ":12:26: error: node \"q\": evidenceSignals names undefined signal \"b\"", bad + ":13:11: error: node \"q\": next names unknown node \"nowhere\""}, ""},
		{"warnings only", []string{"check", warn}, "", 0, []string{warn + ": ok: 2 nodes, 1 signal, 2 warnings"},
			[]string{warn + ":6:34: warning: description of \"a\" reads like a grading descriptor", warn + ":9:5: warning: end node \"bye\" has no conversationPrompt"}, ""},
		{"strict warnings", []string{"check", "--strict", warn}, "", 1, []string{warn + ": FAILED: 2 nodes"}, nil, ""},
		{"several files", []string{"check", good, bad}, "", 1, []string{good + ": ok", bad + ": FAILED"}, nil, ""},
		{"missing file", []string{"check", filepath.Join(t.TempDir(), "nope.yaml")}, "", 1, []string{"FAILED: cannot read"}, []string{"no such file"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut := runCmdExpect(t, tc.stdin, tc.args, tc.code, tc.stdout, tc.stderr)
			if tc.notStderr != "" && strings.Contains(errOut, tc.notStderr) {
				t.Errorf("stderr has %q:\n%s", tc.notStderr, errOut)
			}
		})
	}
}

func TestCheckJSON(t *testing.T) {
	bad := writeTemp(t, "bad.yaml", badSpec)
	out, _, err := runCmd(t, "", "check", "--json", "demo", bad)
	if exitCode(err) != 1 {
		t.Fatalf("exit %v", err)
	}
	var res []struct {
		File        string           `json:"file"`
		OK          bool             `json:"ok"`
		Nodes       int              `json:"nodes"`
		Errors      int              `json:"errors"`
		Diagnostics spec.Diagnostics `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res) != 2 || !res[0].OK || res[0].Nodes != 4 || res[1].OK || res[1].Errors != 3 {
		t.Fatalf("%+v", res)
	}
	d := res[1].Diagnostics[1]
	if d.Pos.Line != 12 || d.Pos.Col != 26 || d.Severity != spec.Error || !strings.Contains(d.Message, `"b"`) {
		t.Errorf("diagnostic %+v", d)
	}
}

func TestCompileCommand(t *testing.T) {
	e, _, err := spec.Compile(examples.DemoSpecName, examples.Demo())
	if err != nil {
		t.Fatal(err)
	}
	wantIR, _ := spec.ExportIR(e)
	wantFlows, _ := spec.ExportPipecatFlows(e)

	out, errOut, err := runCmd(t, "", "compile", "demo")
	if err != nil || out != string(wantIR) || errOut != "" {
		t.Fatalf("compile demo: err %v stderr %q same=%v", err, errOut, out == string(wantIR))
	}
	out, _, err = runCmd(t, "", "compile", "demo", "--target", "pipecat-flows")
	if err != nil || out != string(wantFlows) {
		t.Fatalf("compile --target pipecat-flows: err %v", err)
	}
	dst := filepath.Join(t.TempDir(), "flows.json")
	out, _, err = runCmd(t, string(examples.Demo()), "compile", "-", "-t", "pipecat-flows", "-o", dst)
	if err != nil || out != "" {
		t.Fatalf("compile -o: err %v stdout %q", err, out)
	}
	b, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(b, wantFlows) {
		t.Fatalf("written file differs (err %v)", err)
	}

	bad := writeTemp(t, "bad.yaml", badSpec)
	dst2 := filepath.Join(t.TempDir(), "out.json")
	out, errOut, err = runCmd(t, "", "compile", bad, "-o", dst2)
	if exitCode(err) != 1 || out != "" || !strings.Contains(errOut, bad+":13:11: error:") || !strings.Contains(errOut, "nothing written") {
		t.Fatalf("compile bad: exit %d stdout %q stderr %q", exitCode(err), out, errOut)
	}
	if _, err := os.Stat(dst2); !os.IsNotExist(err) {
		t.Errorf("output written for an invalid spec")
	}

	_, _, err = runCmd(t, "", "compile", "demo", "--target", "yaml")
	if err == nil || !strings.Contains(err.Error(), `unknown --target "yaml"`) {
		t.Errorf("unknown target: %v", err)
	}

	// Shell completion offers the targets.
	out, _, err = runCmd(t, "", "__complete", "compile", "demo", "--target", "")
	if err != nil || !strings.Contains(out, "ir\t") || !strings.Contains(out, "pipecat-flows\t") {
		t.Errorf("completion: %v\n%s", err, out)
	}
}

func TestSchemaCommand(t *testing.T) {
	out, _, err := runCmd(t, "", "schema")
	if err != nil || out != string(spec.JSONSchema()) {
		t.Fatalf("schema: %v", err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Fatalf("schema JSON: %v %v", err, v["$schema"])
	}
	dst := filepath.Join(t.TempDir(), "exam.schema.json")
	if _, _, err := runCmd(t, "", "schema", "-o", dst); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(dst); err != nil || string(b) != out {
		t.Fatalf("schema -o: %v", err)
	}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// examtuiBinary is the real binary: $EXAMTUI_BIN (set by `make test`) or a fresh build.
func examtuiBinary(t *testing.T) string {
	t.Helper()
	return examtuiBinaryTB(t)
}

func examtuiBinaryTB(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if p := os.Getenv("EXAMTUI_BIN"); p != "" {
			binPath = p
			return
		}
		dir, err := os.MkdirTemp("", "examtui-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "examtui")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building examtui: %v", buildErr)
	}
	return binPath
}

// The process exit status and the split between stdout and stderr are part of the contract.
func TestCheckProcess(t *testing.T) {
	bin := examtuiBinary(t)
	bad := writeTemp(t, "bad.yaml", badSpec)
	cases := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"check", "demo"}, 0, "hotel-breakfast.yaml: ok: 4 nodes, 5 signals\n", ""},
		{[]string{"check", bad}, 1, bad + ": FAILED: 3 errors\n", bad + ":12:26: error:"},
		{[]string{"compile", bad}, 1, "", "nothing written"},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		cmd := exec.Command(bin, tc.args...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || out.String() != tc.stdout || !strings.Contains(errOut.String(), tc.stderr) {
			t.Errorf("%v: exit %d stdout %q stderr %q", tc.args, code, out.String(), errOut.String())
		}
	}
}

// BenchmarkCheckProcess measures `examtui check` on the example exam end to end, as a user
// sees it: process start, reading and checking the file, printing, exit. It reports the mean
// (ns/op) and the p50 and p99 of the wall time per run.
func BenchmarkCheckProcess(b *testing.B) {
	bin := examtuiBinaryTB(b)
	file, err := filepath.Abs("../../examples/hotel-breakfast.yaml")
	if err != nil {
		b.Fatal(err)
	}
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		out, err := exec.Command(bin, "check", file).Output()
		samples = append(samples, time.Since(start))
		if err != nil || !bytes.HasSuffix(out, []byte(": ok: 4 nodes, 5 signals\n")) {
			b.Fatalf("check: %v %q", err, out)
		}
	}
	b.StopTimer()
	slices.Sort(samples)
	q := func(p float64) float64 { return float64(samples[int(p*float64(len(samples)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
