package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
)

// recordRehearsal records the example rehearsal (real controller, offline examiner) in a new
// data directory and returns the directory and the session id.
func recordRehearsal(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	return dir, rehearseIn(t, dir, "Priya")
}

// rehearseIn records the example rehearsal for candidate in the store at target (a data
// directory or a postgres:// URL) and returns the session id.
func rehearseIn(t *testing.T, target, candidate string) string {
	t.Helper()
	ctx := context.Background()
	script, exam := runtimetest.Rehearsal(t)
	st, err := sessions.OpenURL(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.Create(ctx, sessions.Meta{Exam: exam, Candidate: candidate, Examiner: "offline", Input: runtime.SourceTyped})
	if err != nil {
		t.Fatal(err)
	}
	j, err := st.Journal(ctx, sess.ID, sessions.WithWaitCommit())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := headless.Run(ctx, script, headless.Options{Sink: j, SessionID: sess.ID}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return sess.ID
}

func TestSessionsCommands(t *testing.T) {
	dir, id := recordRehearsal(t)
	prefix := id[:6]

	out, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "list")
	if err != nil || !strings.Contains(out, id) || !strings.Contains(out, "completed") {
		t.Fatalf("sessions list: %v\n%s", err, out)
	}
	out, _, err = runCmd(t, "", "--data-dir", dir, "sessions", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0]["id"] != id || rows[0]["status"] != "completed" {
		t.Fatalf("sessions list --json: %v\n%s", err, out)
	}
	out, _, err = runCmd(t, "", "--data-dir", dir, "sessions", "show", prefix)
	if err != nil || !strings.Contains(out, "## Nodes visited") || !strings.Contains(out, "scenario-staff-rota") ||
		strings.Contains(out, "\x1b[") {
		t.Fatalf("sessions show (plain when not a terminal): %v\n%s", err, out)
	}

	rr := filepath.Join(t.TempDir(), "run.json")
	if _, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "export", prefix, "--format", "runresult", "-o", rr); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(rr); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("export file: %v %v", fi, err)
	}
	out, _, err = runCmd(t, "", "validate-artifact", rr)
	if err != nil || !strings.Contains(out, "ok") {
		t.Fatalf("validate-artifact of an export: %v\n%s", err, out)
	}
	out, _, err = runCmd(t, "", "--data-dir", dir, "sessions", "export", prefix, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first runtime.Event
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Seq != 1 || first.SessionID != id {
		t.Fatalf("jsonl first line %q: %v", lines[0], err)
	}
	out, _, err = runCmd(t, "", "--data-dir", dir, "replay", prefix, "--json", "--speed", "16", "--gap-cap", "1ms")
	if err != nil || strings.Count(out, "\n") != len(lines) {
		t.Fatalf("replay --json printed %d lines, want %d: %v", strings.Count(out, "\n"), len(lines), err)
	}
	if _, _, err := runCmd(t, "", "--data-dir", dir, "replay", prefix, "--json", "--speed", "40"); err == nil {
		t.Error("replay at 40x accepted")
	}

	out, _, err = runCmd(t, "n\n", "--data-dir", dir, "sessions", "delete", prefix)
	if exitCode(err) != 1 || !strings.Contains(out, "Not deleted") {
		t.Fatalf("delete answered no: %v\n%s", err, out)
	}
	if _, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "delete", prefix, "--yes"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "show", prefix); err == nil {
		t.Error("show after delete succeeded")
	}
}

func TestValidateArtifactCommand(t *testing.T) {
	fixtures := filepath.Join("..", "..", "sessions", "testdata", "artifacts")
	tests := []struct {
		file string
		code int
		want string
	}{
		{"valid.livekit.json", 0, "ok"},
		{"failure.livekit.json", 0, "ok"},
		{"malformed.livekit.json", 1, "3 problem(s)"},
		{"malformed-dumps.livekit.json", 1, "events[1].audio: field not allowed"},
		{"does-not-exist.json", 1, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			out, _, err := runCmd(t, "", "validate-artifact", filepath.Join(fixtures, tt.file))
			if exitCode(err) != tt.code || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d (%v), want %d; output:\n%s", exitCode(err), err, tt.code, out)
			}
		})
	}
	out, _, err := runCmd(t, `{"outcome":"completed"}`, "validate-artifact", "-")
	if exitCode(err) != 1 || !strings.Contains(out, "events: is required") {
		t.Errorf("stdin: exit %d\n%s", exitCode(err), out)
	}
}

// TestSessionsUseConfigDataDir: the config file's dataDir is where sessions are read, as it is
// where runs store them.
func TestSessionsUseConfigDataDir(t *testing.T) {
	dir, id := recordRehearsal(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("dataDir: "+dir+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EXAMTUI_CONFIG", cfg)
	t.Setenv("EXAMTUI_DATA_DIR", "restored after the test")
	os.Unsetenv("EXAMTUI_DATA_DIR") // the config file, not the environment, names the directory
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	out, _, err := runCmd(t, "", "sessions", "list")
	if err != nil || !strings.Contains(out, id) {
		t.Fatalf("sessions list with dataDir from the config file: %v\n%s", err, out)
	}
}

// TestMarkdownExportExaminerLinesOnce: a session the real controller recorded exports each
// examiner line as many times as it was spoken, not once more for its transcript segment.
func TestMarkdownExportExaminerLinesOnce(t *testing.T) {
	dir, id := recordRehearsal(t)
	jsonl, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "export", id, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	spoken, segments := map[string]int{}, 0
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var ev runtime.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		switch p, _ := ev.Decode(); p := p.(type) {
		case *runtime.SpokenPayload:
			spoken[p.Text]++
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker == "examiner" {
				segments++
			}
		}
	}
	if len(spoken) == 0 || segments == 0 {
		t.Fatalf("the rehearsal recorded %d spoken lines and %d examiner segments", len(spoken), segments)
	}
	md, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "export", id, "--format", "markdown")
	if err != nil {
		t.Fatal(err)
	}
	for text, n := range spoken {
		if got := strings.Count(md, "**Examiner:** "+text+"\n"); got != n {
			t.Errorf("examiner line %q appears %d times, spoken %d times", text, got, n)
		}
	}
}
