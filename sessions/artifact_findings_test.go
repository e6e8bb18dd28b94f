package sessions

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
)

// TestValidateArtifactRejectsWhatTheExporterNeverWrites: the eight kinds of bad artifact a
// hostile probe found validate-artifact accepting (issue 26). Each is something the exporter
// never writes, so the validator must refuse it.
func TestValidateArtifactRejectsWhatTheExporterNeverWrites(t *testing.T) {
	head := `"schema":"livekit-agents.voice-testing.run-result.v1","framework":"livekit_agents","surface":"voice_testing_run_result","runtime_mode":"voice.testing","timestamp":"2026-11-23T09:00:00Z","task_label":"t"`
	handoff := `{"type":"agent_handoff","new_agent":"n"}`
	msg := func(content string) string {
		return `{` + head + `,"outcome":"completed","events":[{"type":"message","role":"user","content":"` + content + `"}]}`
	}
	truncated := func(status, byType, examOutcome string) string {
		return `{` + head + `,"outcome":"failed","error_label":"artifact_truncated","truncation":{"kept_events":1,"dropped_events":3,"dropped_by_type":` + byType +
			`,"exam_outcome":"` + examOutcome + `"},"events":[` + handoff + `,{"type":"function_call_output","name":"examtui.truncated","status":"` + status + `"}]}`
	}
	tests := []struct {
		name, doc string
		want      string // prefix of one problem
	}{
		{"API key in content", msg("my key is sk-proj-abcdefghijklmnopqrstuvwx"), "events[0].content: holds a secret-looking value"},
		{"API key in task_label", strings.Replace(msg("hi"), `"task_label":"t"`, `"task_label":"exam sk-proj-abcdefghijklmnopqrstuvwx"`, 1), "task_label: holds a secret-looking value"},
		{"JWT in arguments_ref", `{` + head + `,"outcome":"completed","events":[{"type":"function_call","name":"f","arguments_ref":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.c2lnbmF0dXJlMTIz"}]}`, "events[0].arguments_ref: holds a secret-looking value"},
		{"base64 run of 100 in content", msg("code " + strings.Repeat("QUJD", 25)), "events[0].content: contains a long encoded run"},
		{"hex run of 40 in content", msg("hash " + strings.Repeat("deadbeef", 5)), "events[0].content: contains a long encoded run"},
		{"two-line content", msg(`first line\nsecond line`), "events[0].content: must be a single line"},
		{"tab in status", `{` + head + `,"outcome":"completed","events":[{"type":"function_call_output","name":"f","status":"a\tb"}]}`, "events[0].status: must be a single line"},
		{"marker status disagrees with dropped_events", truncated("dropped_7", `{"message":3}`, "completed"), "events[1].status: must be \"dropped_3\""},
		{"dropped_by_type with a negative count", truncated("dropped_3", `{"message":4,"agent_handoff":-1}`, "completed"), "truncation.dropped_by_type.agent_handoff: must be a positive count"},
		{"exam_outcome that is no outcome", truncated("dropped_3", `{"message":3}`, "artifact_truncated"), "truncation.exam_outcome: must be one of"},
		{"invalid UTF-8", msg("caf\xe9"), "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := ValidateArtifact([]byte(tt.doc))
			for _, p := range problems {
				if strings.HasPrefix(p.String(), tt.want) {
					return
				}
			}
			t.Errorf("want a problem %q, got:\n%s", tt.want, joinProblems(problems))
		})
	}
}

// TestRunResultMasksSecretsEverywhere: the session id (in arguments_ref) and a guardrail's
// name (in a function name) went into the artifact unmasked; the fuzz target with the
// exporter as oracle found both once the validator looked for secrets in every string.
func TestRunResultMasksSecretsEverywhere(t *testing.T) {
	const key = "sk-proj-abcdefghijklmnopqrstuvwx"
	tests := []struct {
		name      string
		sessionID string
		guardrail string
	}{
		{"session id", "run " + key, "persona_break"},
		{"guardrail name", "sess01", key},
		{"guardrail name with spaces", "sess01", "sk-proj abcdefghijklmnopqrstuvwxyz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScript(t, tt.sessionID, fixtureStart)
			s.after(0, &runtime.NodeEnteredPayload{NodeID: "n", Kind: "assessment"})
			s.after(time.Millisecond, &runtime.GuardrailTriggeredPayload{Guardrail: tt.guardrail, NodeID: "n", Action: "replace"})
			sess := &Session{ID: tt.sessionID, ExamID: "e", Title: "t", State: runtime.StateInProgress, StartedAt: fixtureStart}
			rr, err := BuildRunResult(sess, s.events)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteRunResult(&buf, rr); err != nil {
				t.Fatalf("WriteRunResult: %v", err)
			}
			if textsafe.MaskSecrets(buf.String()) != buf.String() {
				t.Errorf("the artifact holds a secret:\n%s", buf.String())
			}
		})
	}
}
