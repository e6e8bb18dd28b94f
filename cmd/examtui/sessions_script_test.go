package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
)

// exportRoundTrip runs the rehearsal script with extra `examtui test` flags (typed, --audio,
// --room-url), stores the session, exports it as a script and runs that script typed against
// the same spec: it must pass. It returns the script's path, the spec's path and the input
// mode the session recorded.
func exportRoundTrip(t *testing.T, extra ...string) (script, specPath, input string) {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	for _, f := range []string{"hotel-breakfast.yaml", "hotel-rehearsal.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), mustRead(t, filepath.Join("..", "..", "examples", f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"--data-dir", data, "--log-file", filepath.Join(dir, "log"), "test"}, extra...)
	out, errOut, err := runCmd(t, "", append(args, filepath.Join(dir, "hotel-rehearsal.yaml"))...)
	if err != nil {
		t.Fatalf("recording run: %v\n%s\n%s", err, out, errOut)
	}
	out, _, err = runCmd(t, "", "--data-dir", data, "sessions", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("sessions list --json: %v\n%s", err, out)
	}
	id, _ := rows[0]["id"].(string)
	input, _ = rows[0]["input"].(string)
	script = filepath.Join(dir, "exported.yaml")
	if _, errOut, err := runCmd(t, "", "--data-dir", data, "sessions", "export", id[:8], "--format", "script", "-o", script); err != nil {
		t.Fatalf("export: %v\n%s", err, errOut)
	}
	src := string(mustRead(t, script))
	for _, want := range []string{"spec: hotel-breakfast.yaml\n", "  decisions:\n", "    - \"transition (evidence_sufficient) → wrapup\"\n", "Candidate script exported from session " + id} {
		if !strings.Contains(src, want) {
			t.Errorf("exported script lacks %q:\n%s", want, src)
		}
	}
	out, errOut, err = runCmd(t, "", "--data-dir", data, "test", "--no-store", script)
	if err != nil {
		t.Fatalf("the exported script fails against the same spec: %v\n%s\n%s\n--- script\n%s", err, out, errOut, src)
	}
	return script, filepath.Join(dir, "hotel-breakfast.yaml"), input
}

// TestExportScriptTyped: a typed session round-trips; after a spec change the run shows which
// decisions changed, turn by turn; --update rewrites the expectations and the script passes
// again, its turns untouched.
func TestExportScriptTyped(t *testing.T) {
	script, specPath, input := exportRoundTrip(t)
	if input != "typed" {
		t.Errorf("input %q", input)
	}
	before := string(mustRead(t, script))
	spec := strings.Replace(string(mustRead(t, specPath)), "      requiredEvidenceCount: 2\n    allowedActions", "      requiredEvidenceCount: 3\n    allowedActions", 1)
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "test", "--no-store", script)
	if exitCode(err) != 1 {
		t.Fatalf("after the spec change: exit %d, want 1\n%s", exitCode(err), out)
	}
	for _, want := range []string{
		`decisions[4] turn 4 at scenario-hotel-breakfast "Most guests at that time are business t…": expected transition (evidence_sufficient) → scenario-staff-rota, got follow_up (probe)`,
		"decisions[6] turn 6 at scenario-hotel-breakfast",
		"visits: expected [welcome, scenario-hotel-breakfast, scenario-staff-rota, wrapup], got [welcome, scenario-hotel-breakfast, scenario-staff-rota]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "decisions[1]") || strings.Contains(out, "decisions[3]") {
		t.Errorf("unchanged decisions reported as changed:\n%s", out)
	}
	if _, errOut, err := runCmd(t, "", "test", "--no-store", "--update", script); !strings.Contains(errOut, "updated the expectations") || err != nil {
		t.Fatalf("--update: %v\n%s", err, errOut)
	}
	if out, _, err := runCmd(t, "", "test", "--no-store", script); err != nil {
		t.Fatalf("after --update: %v\n%s", err, out)
	}
	after := string(mustRead(t, script))
	if strings.Split(after, "expect:")[0] != strings.Split(before, "expect:")[0] {
		t.Errorf("--update changed more than the expectations:\n%s", after)
	}
	if !strings.Contains(after, "  state: in_progress\n") || !strings.Contains(after, `    - "follow_up (redirect)"`) {
		t.Errorf("updated expectations:\n%s", after)
	}
}

// TestExportScriptSpoken: a session stored by `test --audio` (speech synthesised, heard
// through VAD, endpointing and pocketsphinx) becomes a script of what was heard, with its
// confidences, and that script makes the same decisions.
func TestExportScriptSpoken(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	script, _, input := exportRoundTrip(t, "--audio")
	if input != "mic" {
		t.Errorf("input %q, want mic", input)
	}
	if src := string(mustRead(t, script)); !strings.Contains(src, "    confidence: ") {
		t.Errorf("a spoken session's script carries no confidences:\n%s", src)
	}
}

// TestExportScriptRoom: a session run through a real LiveKit room round-trips too.
func TestExportScriptRoom(t *testing.T) {
	srv := lktest.Start(t)
	_, _, input := exportRoundTrip(t, "--room-url", srv.URL, "--api-key", srv.APIKey, "--api-secret", srv.Secret)
	if input != "room" {
		t.Errorf("input %q, want room", input)
	}
}

// TestExportScriptDemo: a session of the built-in demo exports as `spec: demo`, and that script
// runs against the built-in exam.
func TestExportScriptDemo(t *testing.T) {
	data, id := recordRehearsal(t) // the demo exam; the session records no spec file
	script := filepath.Join(t.TempDir(), "demo-session.yaml")
	if _, errOut, err := runCmd(t, "", "--data-dir", data, "sessions", "export", id, "--format", "script", "-o", script); err != nil {
		t.Fatalf("export: %v\n%s", err, errOut)
	}
	src := string(mustRead(t, script))
	if !strings.Contains(src, "\nspec: demo\n") || !strings.Contains(src, "    - \"transition (evidence_sufficient) → wrapup\"\n") {
		t.Fatalf("exported script:\n%s", src)
	}
	if out, errOut, err := runCmd(t, "", "--data-dir", data, "test", "--no-store", script); err != nil {
		t.Fatalf("the exported demo script fails: %v\n%s\n%s\n%s", err, out, errOut, src)
	}
}
