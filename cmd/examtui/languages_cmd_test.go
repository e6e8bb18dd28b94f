package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/spec/lang"
)

// TestCheckLanguagePacks: check refuses an exam in a language without a pack, and accepts it
// once the config file adds one (languages:); a pack file with a misspelt key is an error
// naming it.
func TestCheckLanguagePacks(t *testing.T) {
	dir := t.TempDir()
	exam := filepath.Join(dir, "pl.yaml")
	src := "specVersion: \"1\"\nid: t\ntitle: T\nlanguage: pl\npersona: {id: ex, roleMessage: \"x\"}\n" +
		"evidence:\n  - {signalType: a, description: A, levels: [l]}\nnodes:\n" +
		"  - {nodeId: s, kind: assessment, scenario: S, conversationPrompt: \"Q?\", evidenceSignals: [a], next: e}\n" +
		"  - {nodeId: e, kind: end, conversationPrompt: Bye}\n"
	if err := os.WriteFile(exam, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EXAMTUI_CONFIG", filepath.Join(dir, "none.yaml"))
	out, errOut, err := runCmd(t, "", "check", exam)
	if exitCode(err) != 1 || !strings.Contains(errOut, `pl.yaml:4:11: error: no language pack for "pl"`) {
		t.Fatalf("without a pack: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}

	pack := *lang.English()
	pack.Language = "pl"
	b, _ := json.Marshal(&pack)
	if err := os.WriteFile(filepath.Join(dir, "pl.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("languages: [pl.json]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EXAMTUI_CONFIG", cfg)
	if out, errOut, err := runCmd(t, "", "check", exam); exitCode(err) != 0 {
		t.Fatalf("with a pack: exit %d\n%s\n%s", exitCode(err), out, errOut)
	}

	if err := os.WriteFile(filepath.Join(dir, "pl.json"), []byte(`{"language":"pl","lines":{"thankyou":"Dziękuję."}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "", "run", "--headless", "--no-store", exam); err == nil ||
		!strings.Contains(err.Error(), `pl.json: invalid language pack: pack "pl": unknown line "thankyou"`) {
		t.Fatalf("a bad pack file: %v", err)
	}
}
