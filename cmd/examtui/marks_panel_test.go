package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/endpoint/endpointtest"
	"github.com/examtui/examtui/internal/openaitest"
)

// examtui marks propose --panel asks the config file's panel (three members on three test
// servers, through the real go-openai client) after the rule: one member agrees, one cites a
// segment the transcript does not have, one fails; the output says which and flags the
// dispersed criterion.
func TestMarksProposePanel(t *testing.T) {
	dir, id := recordRehearsal(t)
	marks := func(options, optionsSeg string) string {
		return `{"marks":[` +
			`{"criterion":"options","level":"` + options + `","rationale":"two options","segments":["` + optionsSeg + `"]},` +
			`{"criterion":"clientele","level":"analysis","rationale":"the guests' hurry","segments":["seg-0010"]},` +
			`{"criterion":"resources","level":"evaluation","rationale":"staff against revenue","segments":["seg-0013","seg-0015"]},` +
			`{"criterion":"communication","level":"description","rationale":"clear","segments":["seg-0003"]}]}`
	}
	steady := openaitest.New(t, openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour {
		return openaitest.ToolCall(marks("description", "seg-0008"), openaitest.TokenUsage(900, 80))
	}))
	wrongCite := openaitest.New(t)
	wrongCite.Enqueue(openaitest.ToolCall(marks("evaluation", "seg-0999")), openaitest.ToolCall(marks("analysis", "seg-0008")))
	failing := openaitest.New(t, openaitest.WithDefault(func(*openaitest.ChatRequest) openaitest.Behaviour { return openaitest.Status(503) }))
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("panel:\n  members:\n"+
		"    - {name: steady, model: m-steady, baseURL: "+steady.URL()+"}\n"+
		"    - {name: citer, model: m-citer, baseURL: "+wrongCite.URL()+"}\n"+
		"    - {name: down, model: m-down, baseURL: "+failing.URL()+"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	endpointtest.Isolate(t, map[string]string{"EXAMTUI_CONFIG": cfg})

	out, errOut, err := runCmd(t, "", "--data-dir", dir, "marks", "propose", id[:6], "--panel")
	if err != nil {
		t.Fatalf("marks propose --panel: %v\n%s%s", err, out, errOut)
	}
	for _, want := range []string{
		"options (Options for the breakfast problem): description", // the rule's, first
		"Model panel (3 members; Krippendorff's α ordinal",
		"options: description, agreement 0.00, spread 1 — FOR A HUMAN: levels 1 apart (description to analysis)",
		"citer analysis [seg-0008]: two options",
		"clientele: analysis, agreement 1.00, spread 0\n",
		"member down failed: first round:",
		"503",
		"member citer: first round, options rejected (unknown_segment): cites seg-0999, not in the transcript",
		"usage m-steady: 2 calls, 1800 prompt and 160 completion tokens",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out, _, err = runCmd(t, "", "--data-dir", dir, "marks", "propose", id, "--panel", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SessionID string `json:"sessionId"`
		Criteria  []struct{ Criterion, Level string }
		Panel     struct {
			Criteria []struct {
				Criterion string
				Flagged   bool
			}
			Members []struct{ Name, Error string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.SessionID != id || len(doc.Criteria) != 4 || len(doc.Panel.Criteria) != 4 || !doc.Panel.Criteria[0].Flagged || doc.Panel.Members[2].Error == "" {
		t.Errorf("--json: %+v", doc)
	}

	// Both runs were stored with the session: marks show prints the latest (the second, where
	// citer's server had nothing left to say), with no call.
	calls := len(steady.ChatRequests())
	out, errOut, err = runCmd(t, "", "--data-dir", dir, "marks", "show", id)
	if err != nil {
		t.Fatalf("marks show: %v\n%s%s", err, out, errOut)
	}
	for _, want := range []string{"Model panel (3 members;", "steady description [seg-0008]: two options", "member citer failed: first round:", "member down failed: first round:"} {
		if !strings.Contains(out, want) {
			t.Errorf("marks show lacks %q:\n%s", want, out)
		}
	}
	if len(steady.ChatRequests()) != calls {
		t.Error("marks show asked the panel again")
	}
	out, _, err = runCmd(t, "", "--data-dir", dir, "marks", "show", id, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var shown struct {
		Panel struct {
			Members []struct {
				Name, Model, Endpoint string
				Calls                 []struct{ Round, PromptDigest, Reply string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if m := shown.Panel.Members; len(m) != 3 || m[0].Model != "m-steady" || m[1].Endpoint != wrongCite.URL() || len(m[1].Calls) != 1 ||
		m[0].Calls[0].Round != "first" || !strings.HasPrefix(m[0].Calls[0].PromptDigest, "sha256:") || m[0].Calls[0].Reply != marks("description", "seg-0008") {
		t.Errorf("marks show --json panel: %+v", shown.Panel)
	}
}
