package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateArtifactCorpus(t *testing.T) {
	tests := []struct {
		file string
		want []string // one entry per expected problem, each "path: message fragment"
	}{
		{"valid.livekit.json", nil},
		{"failure.livekit.json", nil},
		{"malformed.livekit.json", []string{
			"error_label: must be absent when outcome is completed",
			"events[0].content: must be a short string, got an array",
			`events[1].type: unknown event type "transcript"`,
		}},
		{"malformed-missing-events.livekit.json", []string{
			"error_label: is required when outcome is failed",
			"events: is required",
		}},
		{"malformed-types.livekit.json", []string{
			`framework: must be "livekit_agents"`,
			"task_label: must be a string, got a number",
			"timestamp: must be an RFC 3339 time",
			`outcome: must be "completed" or "failed"`,
			"events: must not be empty",
		}},
		{"malformed-dumps.livekit.json", []string{
			"error_label: must be a short classifier label",
			"events[0].content: must be a single line",
			"events[1].audio: field not allowed",
			"events[1].content: contains a long encoded run",
			"events[2].arguments: field not allowed",
			"events[3].output: field not allowed",
			"events[3].name: must be a function name",
			"events[4].new_agent: is required",
			"events[5].role: must be one of",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "artifacts", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			problems := ValidateArtifact(data)
			if len(problems) != len(tt.want) {
				t.Errorf("%d problems, want %d:\n%s", len(problems), len(tt.want), joinProblems(problems))
			}
			for _, w := range tt.want {
				found := false
				for _, p := range problems {
					if strings.HasPrefix(p.String(), w) {
						found = true
					}
				}
				if !found {
					t.Errorf("missing problem %q in:\n%s", w, joinProblems(problems))
				}
			}
		})
	}
}

func TestValidateArtifactShapes(t *testing.T) {
	base := `"schema":"livekit-agents.voice-testing.run-result.v1","framework":"livekit_agents","surface":"voice_testing_run_result","runtime_mode":"voice.testing","task_label":"t","timestamp":"2026-11-23T09:00:00Z"`
	tests := []struct {
		name, doc string
		bad       bool
	}{
		{"not json", `{`, true},
		{"array", `[]`, true},
		{"trailing", `{} {}`, true},
		{"minimal completed", `{` + base + `,"outcome":"completed","events":[{"type":"agent_handoff","new_agent":"n"}]}`, false},
		{"null optional", `{` + base + `,"outcome":"completed","agent_ref":null,"events":[{"type":"agent_handoff","new_agent":"n"}]}`, true},
		{"long content", `{` + base + `,"outcome":"completed","events":[{"type":"message","role":"user","content":"` + strings.Repeat("word ", 101) + `"}]}`, true},
		{"event not object", `{` + base + `,"outcome":"completed","events":["message"]}`, true},
		{"multiline label", `{` + base + `,"outcome":"failed","error_label":"a\nb","events":[{"type":"agent_handoff","new_agent":"n"}]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := ValidateArtifact([]byte(tt.doc))
			if (len(problems) > 0) != tt.bad {
				t.Errorf("problems = %v, want bad=%v", problems, tt.bad)
			}
		})
	}
}

func joinProblems(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}

// FuzzValidateArtifact: the validator reads files from anywhere; it must never panic, and a
// document it accepts must be a JSON object with a non-empty event list.
func FuzzValidateArtifact(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "artifacts"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata", "artifacts", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"events":[{"type":"message","content":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		problems := ValidateArtifact(data)
		if len(problems) == 0 && !strings.Contains(string(data), `"events"`) {
			t.Fatalf("accepted a document without events: %q", data)
		}
	})
}
