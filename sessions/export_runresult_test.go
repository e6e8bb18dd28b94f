package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// hostileEvents is a short completed exam whose candidate and examiner text carries what a
// terminal or a reader must never receive: escape sequences, a bell, NUL, DEL, C1 controls, a
// bidirectional override, a 300-character encoded token, and a pasted API key.
func hostileEvents(t testing.TB, id string) []runtime.Event {
	token := strings.Repeat("QUJDRA", 50) // 300 characters of base64
	const b = "scenario-hotel-breakfast"
	s := newScript(t, id, fixtureStart)
	s.after(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady})
	s.after(time.Millisecond, &runtime.NodeEnteredPayload{NodeID: "welcome", Kind: "scaffolding", Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 2}})
	s.after(time.Millisecond, &runtime.NodeExitPayload{NodeID: "welcome", Reason: runtime.TransitionExit(spec.ReasonEvidenceSufficient), Next: b})
	s.after(time.Millisecond, &runtime.NodeEnteredPayload{NodeID: b, Kind: "assessment", Progress: runtime.Progress{CurrentNodeIndex: 2, TotalNodes: 2}})
	s.after(time.Millisecond, &runtime.SpokenPayload{NodeID: b, Text: "What would you do?\x1b[2J", Source: runtime.SpokenPrompt})
	s.after(time.Second, cand(b, "seg-1", "my code is "+token+" ok", 0.9, 1000))
	s.after(time.Millisecond, obs(b, 1, true, "continue\x07", "", runtime.Latency{}))
	s.after(time.Millisecond, &runtime.EvidenceUpdatePayload{NodeID: b, SignalType: "proposes_options", Excerpt: "my code is " + token + " ok"})
	s.after(time.Millisecond, &runtime.EvidenceUpdatePayload{NodeID: b, SignalType: "analyses_clientele\u202e",
		Excerpt: "a\x1b]52;c;aGk=\x07b\x00c\x7fd\u0085e\u202Efg key sk-proj-abcdefghijklmnopqrstuvwx"})
	s.after(time.Millisecond, &runtime.GuardrailTriggeredPayload{Guardrail: "persona break\x1b", NodeID: b, Action: "replace", OriginalText: "As an AI " + token})
	s.after(time.Millisecond, &runtime.ExamStatePayload{State: runtime.StateCompleted, Previous: runtime.StateInProgress})
	s.after(time.Millisecond, &runtime.ExamCompletedPayload{State: runtime.StateCompleted})
	return s.events
}

// TestRunResultExportPassesValidator: whatever the candidate said, the exporter writes only
// what validate-artifact accepts, with control and bidirectional characters stripped and
// encoded runs removed.
func TestRunResultExportPassesValidator(t *testing.T) {
	sess := &Session{ID: "hostile01", ExamID: "hospitality\x1b[31m-oral", Title: "Hotel \u202eexam\x07 \x00\u009b1m", State: runtime.StateCompleted,
		StartedAt: fixtureStart, EndedAt: fixtureStart.Add(time.Minute)}
	rr, err := BuildRunResult(sess, hostileEvents(t, sess.ID))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteRunResult(&buf, rr); err != nil {
		t.Fatalf("export refused its own artifact: %v", err)
	}
	if problems := ValidateArtifact(buf.Bytes()); len(problems) > 0 {
		t.Fatalf("validator rejects the export: %v\n%s", problems, buf.Bytes())
	}
	var back RunResult
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.TaskLabel != "Hotel exam 1m" {
		t.Errorf("task_label = %q", back.TaskLabel)
	}
	strs := []string{back.TaskLabel, back.AgentRef}
	for _, e := range back.Events {
		strs = append(strs, e.Content, e.Name, e.Status, e.NewAgent, e.ArgumentsRef, e.Role)
	}
	for _, s := range strs {
		if textsafe.Unsafe(s) || strings.ContainsAny(s, "\n\r\t") {
			t.Errorf("unsafe text in the artifact: %q", s)
		}
	}
	out := buf.String()
	for _, leak := range []string{"QUJDRAQUJD", "sk-proj-", "What would you do", "As an AI"} {
		if strings.Contains(out, leak) {
			t.Errorf("artifact holds %q:\n%s", leak, out)
		}
	}
	for _, want := range []string{"my code is " + encodedRedaction + " ok", `"examtui.guardrail.persona_break"`, `"status": "continue"`, `"status": "analyses_clientele"`} {
		if !strings.Contains(out, want) {
			t.Errorf("artifact lacks %s:\n%s", want, out)
		}
	}
}

// TestWriteRunResultRefusesInvalid: an artifact the validator rejects is never written.
func TestWriteRunResultRefusesInvalid(t *testing.T) {
	rr := &RunResult{Schema: RunResultSchema, Framework: RunResultFramework, Surface: RunResultSurface, RuntimeMode: RunResultRuntimeMode,
		TaskLabel: "t\x1b[2J", Timestamp: "2026-11-23T09:00:00Z", Outcome: OutcomeCompleted,
		Events: []RunEvent{{Type: RunEventMessage, Role: "user", Content: strings.Repeat("A", 300)}}}
	var buf bytes.Buffer
	err := WriteRunResult(&buf, rr)
	if !errors.Is(err, ErrInvalidArtifact) {
		t.Fatalf("WriteRunResult = %v, want ErrInvalidArtifact", err)
	}
	for _, want := range []string{"task_label: contains control", "events[0].content: contains a long encoded run"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %d bytes of an invalid artifact", buf.Len())
	}
}

// longExam is a completed exam with n observation turns, each a candidate line, an examiner
// line and a decision (action), every tenth with evidence citing part of the answer.
func longExam(t testing.TB, id string, n int, action runtime.DecisionAction) []runtime.Event {
	const b = "scenario-hotel-breakfast"
	s := newScript(t, id, fixtureStart)
	s.after(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady})
	s.after(time.Millisecond, &runtime.NodeEnteredPayload{NodeID: b, Kind: "assessment", Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 2}})
	for i := range n {
		s.after(time.Second, &runtime.SpokenPayload{NodeID: b, Text: fmt.Sprintf("Question %d: tell me more about the breakfast service and the guests.", i), Source: runtime.SpokenExaminer})
		s.after(time.Second, cand(b, fmt.Sprintf("seg-%d", i), fmt.Sprintf("Answer %d: "+strings.Repeat("we would stagger the buffet and open a counter ", 5), i), 0.9, int64(i)*1000))
		s.after(time.Millisecond, obs(b, i+1, true, action, "", runtime.Latency{}))
		if i%10 == 0 {
			s.after(time.Millisecond, &runtime.EvidenceUpdatePayload{NodeID: b, SignalType: "proposes_options", Excerpt: "stagger the buffet"})
		}
	}
	s.after(time.Millisecond, &runtime.NodeExitPayload{NodeID: b, Reason: runtime.TransitionExit(spec.ReasonTimeExhausted), Next: "wrapup"})
	s.after(time.Millisecond, &runtime.NodeEnteredPayload{NodeID: "wrapup", Kind: "end", Progress: runtime.Progress{CurrentNodeIndex: 2, TotalNodes: 2}})
	s.after(time.Millisecond, &runtime.ExamStatePayload{State: runtime.StateCompleted, Previous: runtime.StateInProgress})
	s.after(time.Millisecond, &runtime.ExamCompletedPayload{State: runtime.StateCompleted})
	return s.events
}

// TestRunResultIsSmall: a 1,000-turn exam (the kind that made a 270 KB transcript export)
// gives an artifact of decisions, evidence and transitions: no examiner line, and candidate
// speech only where evidence cites it.
func TestRunResultIsSmall(t *testing.T) {
	st := openTestStore(t)
	sess := recordSession(t, st, "long0001", func(id string) []runtime.Event { return longExam(t, id, 500, "follow_up") })
	var buf bytes.Buffer
	if err := st.Export(context.Background(), &buf, sess.ID, FormatRunResult, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "Question ") || strings.Contains(out, "Answer ") {
		t.Error("artifact carries examiner lines or uncited candidate turns")
	}
	var rr RunResult
	if err := json.Unmarshal(buf.Bytes(), &rr); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, e := range rr.Events {
		counts[string(e.Type)+":"+e.Name+e.Role]++
	}
	want := map[string]int{
		"function_call:report_observation": 500, "function_call_output:report_observation": 500,
		"function_call:examtui.evidence": 50, "function_call_output:examtui.evidence": 50, "message:user": 50,
		"function_call:examtui.transition": 1, "function_call_output:examtui.transition": 1, "agent_handoff:": 1,
	}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("event counts %v, want %v", counts, want)
	}
	if rr.Outcome != OutcomeCompleted || rr.Truncation != nil {
		t.Errorf("outcome %v, truncation %+v", rr.Outcome, rr.Truncation)
	}
	if buf.Len() > 200_000 {
		t.Errorf("artifact is %d bytes", buf.Len())
	}
	if rr.Omitted == nil || *rr.Omitted != (Omitted{ExaminerLines: 500, CandidateTurns: 500}) {
		t.Errorf("omitted %+v", rr.Omitted)
	}
	// Turns where nothing was decided are counted, not listed.
	quiet := &Session{ID: "long0002", ExamID: "x", Title: "x", State: runtime.StateCompleted, StartedAt: fixtureStart, EndedAt: fixtureStart.Add(time.Hour)}
	qr, err := BuildRunResult(quiet, longExam(t, quiet.ID, 500, "continue"))
	if err != nil {
		t.Fatal(err)
	}
	if len(qr.Events) != 50*3+3 || qr.Omitted.ContinueDecisions != 500 {
		t.Errorf("%d events, omitted %+v", len(qr.Events), qr.Omitted)
	}
}

// TestRunResultTruncation: past the event bound the artifact says so (marker, counts) and its
// outcome describes what it holds, not an end it does not show.
func TestRunResultTruncation(t *testing.T) {
	tests := []struct {
		name  string
		turns int
		opts  []RunResultOption
		kept  int
	}{
		{"default bound", 1100, nil, MaxArtifactEvents - 1},
		{"small bound", 20, []RunResultOption{WithMaxEvents(10)}, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sess := &Session{ID: "trunc001", ExamID: "x", Title: "x", State: runtime.StateCompleted, StartedAt: fixtureStart, EndedAt: fixtureStart.Add(time.Hour)}
			evs := longExam(t, sess.ID, tt.turns, "follow_up")
			full, err := BuildRunResult(sess, evs)
			if err != nil {
				t.Fatal(err)
			}
			rr, err := BuildRunResult(sess, evs, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			total := len(full.Events)
			if full.Truncation != nil {
				total = full.Truncation.KeptEvents + full.Truncation.DroppedEvents
			}
			if rr.Truncation == nil {
				t.Fatalf("no truncation recorded (%d events)", len(rr.Events))
			}
			if rr.Outcome != OutcomeFailed || rr.ErrorLabel != ErrorLabelTruncated || rr.Truncation.ExamOutcome != "completed" {
				t.Errorf("outcome %v %q exam_outcome %q", rr.Outcome, rr.ErrorLabel, rr.Truncation.ExamOutcome)
			}
			if len(rr.Events) != tt.kept+1 || rr.Truncation.KeptEvents != tt.kept || rr.Truncation.DroppedEvents != total-tt.kept {
				t.Errorf("kept %d (events %d) dropped %d of %d", rr.Truncation.KeptEvents, len(rr.Events), rr.Truncation.DroppedEvents, total)
			}
			sum := 0
			for _, n := range rr.Truncation.DroppedByType {
				sum += n
			}
			if sum != rr.Truncation.DroppedEvents || rr.Truncation.DroppedByType["agent_handoff"] != 1 {
				t.Errorf("dropped_by_type %v", rr.Truncation.DroppedByType)
			}
			last := rr.Events[len(rr.Events)-1]
			if last.Type != RunEventFunctionCallOutput || last.Name != fnTruncated || last.Status != fmt.Sprintf("dropped_%d", rr.Truncation.DroppedEvents) {
				t.Errorf("last event %+v", last)
			}
			var buf bytes.Buffer
			if err := WriteRunResult(&buf, rr); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestValidateArtifactUnsafeAndTruncation: the validator rejects control and bidirectional
// characters anywhere, and a truncation that does not add up.
func TestValidateArtifactUnsafeAndTruncation(t *testing.T) {
	head := `"schema":"livekit-agents.voice-testing.run-result.v1","framework":"livekit_agents","surface":"voice_testing_run_result","runtime_mode":"voice.testing","timestamp":"2026-11-23T09:00:00Z"`
	handoff := `{"type":"agent_handoff","new_agent":"n"}`
	marker := `{"type":"function_call_output","name":"examtui.truncated","status":"dropped_3"}`
	tr := `"outcome":"failed","error_label":"artifact_truncated","truncation":{"kept_events":1,"dropped_events":3,"dropped_by_type":{"message":2,"agent_handoff":1},"exam_outcome":"completed"}`
	tests := []struct {
		name, doc string
		want      string // a problem prefix, "" for valid
	}{
		{"esc in task_label", `{` + head + `,"task_label":"a\u001b[2Jb","outcome":"completed","events":[` + handoff + `]}`, "task_label: contains control"},
		{"bel in content", `{` + head + `,"task_label":"t","outcome":"completed","events":[{"type":"message","role":"user","content":"hi\u0007"}]}`, "events[0].content: contains control"},
		{"nul in new_agent", `{` + head + `,"task_label":"t","outcome":"completed","events":[{"type":"agent_handoff","new_agent":"n\u0000"}]}`, "events[0].new_agent: contains control"},
		{"del in status", `{` + head + `,"task_label":"t","outcome":"completed","events":[{"type":"function_call_output","name":"f","status":"ok\u007f"}]}`, "events[0].status: contains control"},
		{"c1 in agent_ref", `{` + head + `,"task_label":"t","agent_ref":"a\u009bb","outcome":"completed","events":[` + handoff + `]}`, "agent_ref: contains control"},
		{"bidi in content", `{` + head + `,"task_label":"t","outcome":"completed","events":[{"type":"message","role":"user","content":"abc\u202edef"}]}`, "events[0].content: contains control"},
		{"truncated ok", `{` + head + `,"task_label":"t",` + tr + `,"events":[` + handoff + `,` + marker + `]}`, ""},
		{"truncated but completed", `{` + head + `,"task_label":"t","outcome":"completed","truncation":{"kept_events":1,"dropped_events":3,"dropped_by_type":{"message":3},"exam_outcome":"completed"},"events":[` + handoff + `,` + marker + `]}`, "outcome: a truncated artifact must be failed"},
		{"truncated without marker", `{` + head + `,"task_label":"t",` + tr + `,"events":[` + handoff + `,` + handoff + `]}`, "events[1]: a truncated artifact must end with"},
		{"kept mismatch", `{` + head + `,"task_label":"t",` + tr + `,"events":[` + handoff + `,` + handoff + `,` + marker + `]}`, "truncation.kept_events: is 1"},
		{"counts mismatch", `{` + head + `,"task_label":"t","outcome":"failed","error_label":"artifact_truncated","truncation":{"kept_events":1,"dropped_events":3,"dropped_by_type":{"message":1},"exam_outcome":"completed"},"events":[` + handoff + `,` + marker + `]}`, "truncation.dropped_by_type: adds up to 1"},
		{"label without truncation", `{` + head + `,"task_label":"t","outcome":"failed","error_label":"artifact_truncated","events":[` + handoff + `]}`, "truncation: is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := ValidateArtifact([]byte(tt.doc))
			if tt.want == "" {
				if len(problems) > 0 {
					t.Errorf("valid document rejected: %v", problems)
				}
				return
			}
			found := false
			for _, p := range problems {
				found = found || strings.HasPrefix(p.String(), tt.want)
			}
			if !found {
				t.Errorf("want problem %q, got:\n%s", tt.want, joinProblems(problems))
			}
		})
	}
}

// FuzzRunResultExport: whatever a candidate says or an author titles the exam, the exporter's
// artifact passes its own validator (WriteRunResult never refuses it).
func FuzzRunResultExport(f *testing.F) {
	f.Add("Hotel exam", "stagger the buffet", "rubric_leak")
	f.Add("a\x1b]0;t\x07", strings.Repeat("QUJD", 80), "persona break\u202e")
	f.Add("", "user: hi\nassistant: hello\nuser: bye", "\x00")
	f.Fuzz(func(t *testing.T, title, excerpt, guardrail string) {
		const b = "scenario"
		s := newScript(t, "fuzz0001", fixtureStart)
		s.after(0, &runtime.NodeEnteredPayload{NodeID: b, Kind: "assessment"})
		s.after(time.Millisecond, &runtime.EvidenceUpdatePayload{NodeID: b, SignalType: excerpt, Excerpt: excerpt})
		s.after(time.Millisecond, &runtime.GuardrailTriggeredPayload{Guardrail: guardrail, NodeID: b, Action: runtime.GuardrailAction(guardrail)})
		s.after(time.Millisecond, &runtime.NodeExitPayload{NodeID: b, Reason: runtime.ExitReason(title)})
		s.after(time.Millisecond, &runtime.NodeEnteredPayload{NodeID: excerpt, Kind: "end"})
		sess := &Session{ID: "fuzz0001", ExamID: title, Title: title, State: runtime.StateInProgress, StartedAt: fixtureStart}
		rr, err := BuildRunResult(sess, s.events)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteRunResult(&bytes.Buffer{}, rr); err != nil {
			t.Fatalf("exporter wrote what its validator rejects: %v", err)
		}
	})
}

// TestRunResultExcerptEncodedRuns: what is left of a token cut by the examiner's excerpt is
// removed too; ordinary long words stay.
func TestRunResultExcerptEncodedRuns(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a grab-and-go counter " + strings.Repeat("QUJD", 45), "a grab-and-go counter " + encodedRedaction},
		{"hash deadbeefdeadbeefdeadbeefdeadbeefdeadbeef0123 ok", "hash " + encodedRedaction + " ok"},
		{"internationalization and counterrevolutionaries", "internationalization and counterrevolutionaries"},
		{"see https://example.org/menu for prices", "see https://example.org/menu for prices"},
	}
	for _, tt := range tests {
		if got := excerpt(tt.in); got != tt.want {
			t.Errorf("excerpt(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkRunResult1000Turns: building and validating the artifact of a 1,000-turn exam.
func BenchmarkRunResult1000Turns(b *testing.B) {
	sess := &Session{ID: "bench001", ExamID: "x", Title: "x", State: runtime.StateCompleted, StartedAt: fixtureStart, EndedAt: fixtureStart.Add(time.Hour)}
	evs := longExam(b, sess.ID, 1000, "continue")
	b.ReportAllocs()
	var size int
	for b.Loop() {
		rr, err := BuildRunResult(sess, evs)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteRunResult(&buf, rr); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "artifact-bytes")
}

// TestRunResultLongNodeIDsStayDistinct: node ids longer than a label share their first 64
// characters; each keeps a handoff label of its own (both were cut to the same "…" label).
func TestRunResultLongNodeIDsStayDistinct(t *testing.T) {
	long := strings.Repeat("scenario-hotel-breakfast-", 3)
	a, b := long+"weekday", long+"weekend"
	s := newScript(t, "long0001", fixtureStart)
	s.after(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady})
	s.after(time.Millisecond, &runtime.NodeEnteredPayload{NodeID: "welcome", Kind: "scaffolding"})
	s.after(time.Millisecond, &runtime.NodeExitPayload{NodeID: "welcome", Reason: runtime.TransitionExit(spec.ReasonEvidenceSufficient), Next: a})
	s.after(time.Millisecond, &runtime.NodeEnteredPayload{NodeID: a, Kind: "assessment"})
	s.after(time.Millisecond, &runtime.NodeExitPayload{NodeID: a, Reason: runtime.TransitionExit(spec.ReasonEvidenceSufficient), Next: b})
	s.after(time.Millisecond, &runtime.NodeEnteredPayload{NodeID: b, Kind: "assessment"})
	s.after(time.Millisecond, &runtime.ExamStatePayload{State: runtime.StateCompleted, Previous: runtime.StateInProgress})
	s.after(time.Millisecond, &runtime.ExamCompletedPayload{State: runtime.StateCompleted})
	sess := &Session{ID: "long0001", ExamID: long + long, Title: "x", State: runtime.StateCompleted, StartedAt: fixtureStart, EndedAt: fixtureStart.Add(time.Minute)}
	rr, err := BuildRunResult(sess, s.events)
	if err != nil {
		t.Fatal(err)
	}
	var agents []string
	for _, e := range rr.Events {
		if e.Type == RunEventAgentHandoff {
			agents = append(agents, e.NewAgent)
		}
	}
	if len(agents) != 2 || agents[0] == agents[1] {
		t.Fatalf("handoff labels %q: want two distinct", agents)
	}
	for _, l := range append(agents, rr.AgentRef) {
		if n := len([]rune(l)); n > MaxLabel {
			t.Errorf("label %q has %d runes > %d", l, n, MaxLabel)
		}
	}
	if !strings.HasPrefix(agents[0], "scenario-hotel-breakfast-") {
		t.Errorf("label %q lost the id's start", agents[0])
	}
	var buf bytes.Buffer
	if err := WriteRunResult(&buf, rr); err != nil {
		t.Fatalf("the validator refuses it: %v", err)
	}
}

// TestRunResultCells: the runresult's texts follow the export's one cell rule (textsafe.Cell): a
// formula, after spaces or full-width, is quoted; escapes and overrides are dropped.
func TestRunResultCells(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{" =1+1", "' =1+1"},
		{"＝1+1", "'＝1+1"},
		{"Eve\x1b]52;c;cm0=\x07 \u202eok", "Eve ok"},
		{"plain words", "plain words"},
	} {
		if got := excerpt(tc.in); got != tc.want {
			t.Errorf("excerpt(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
