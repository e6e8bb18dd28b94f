package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
)

func TestExportGolden(t *testing.T) { forEachEngine(t, testExportGolden) }

func testExportGolden(t *testing.T, eng testEngine) {
	ctx := context.Background()
	st := eng.open(t)
	recordExam(t, st, "9f3c2a1b7d4e5f60")
	tests := []struct {
		format Format
		file   string
	}{
		{FormatJSONL, "exam.jsonl"},
		{FormatMarkdown, "exam.md"},
		{FormatRunResult, "exam.runresult.json"},
	}
	for _, tt := range tests {
		t.Run(tt.format.String(), func(t *testing.T) {
			var buf bytes.Buffer
			if err := st.Export(ctx, &buf, "9f3c2a1b7d4e5f60", tt.format, ExportOptions{Version: "1.0.0"}); err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", tt.file), buf.Bytes())
			if tt.format == FormatRunResult {
				if problems := ValidateArtifact(buf.Bytes()); len(problems) > 0 {
					t.Errorf("exported artifact fails validation: %v", problems)
				}
			}
		})
	}
	sum, err := st.Summary(ctx, "9f3c2a1b7d4e5f60")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "golden", "show.md"), []byte(RenderMarkdown(sum, MarkdownOptions{})))
}

func TestRunResultOutcomes(t *testing.T) { forEachEngine(t, testRunResultOutcomes) }

func testRunResultOutcomes(t *testing.T, eng testEngine) {
	ctx := context.Background()
	st := eng.open(t)
	tests := []struct {
		name      string
		events    func(id string) []runtime.Event
		outcome   Outcome
		label     string
		interrupt bool
	}{
		{"completed", func(id string) []runtime.Event { return examEvents(t, id, fixtureStart) }, OutcomeCompleted, "", false},
		{"interrupted", func(id string) []runtime.Event { return examEvents(t, id, fixtureStart)[:20] }, OutcomeFailed, "session_interrupted", true},
		{"aborted", func(id string) []runtime.Event {
			evs := examEvents(t, id, fixtureStart)[:12]
			s := &script{t: t, id: id, now: evs[len(evs)-1].Timestamp, seq: int64(len(evs)), events: evs}
			s.after(0, &runtime.ExamStatePayload{State: runtime.StateAborted, Previous: runtime.StateInProgress, Reason: "examiner ended"})
			return s.events
		}, OutcomeFailed, "exam_aborted", false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := "outc000" + string(rune('a'+i))
			sess := recordSession(t, st, id, tt.events)
			if sess.Interrupted != tt.interrupt {
				t.Errorf("interrupted = %v", sess.Interrupted)
			}
			var buf bytes.Buffer
			if err := st.Export(ctx, &buf, id, FormatRunResult, ExportOptions{}); err != nil {
				t.Fatal(err)
			}
			evs, _ := st.LoadEvents(ctx, id)
			rr, err := BuildRunResult(sess, evs)
			if err != nil {
				t.Fatal(err)
			}
			if rr.Outcome != tt.outcome || rr.ErrorLabel != tt.label {
				t.Errorf("outcome %v %q, want %v %q", rr.Outcome, rr.ErrorLabel, tt.outcome, tt.label)
			}
			if problems := ValidateArtifact(buf.Bytes()); len(problems) > 0 {
				t.Errorf("artifact invalid: %v\n%s", problems, buf.Bytes())
			}
		})
	}
}

// TestRunResultNothingToExport: a session stopped before anything the artifact lists (a run
// killed before the candidate's first turn) exports an artifact that says so and validates.
func TestRunResultNothingToExport(t *testing.T) { forEachEngine(t, testRunResultNothingToExport) }

func testRunResultNothingToExport(t *testing.T, eng testEngine) {
	st := eng.open(t)
	sess := recordSession(t, st, "empty001", func(id string) []runtime.Event {
		return examEvents(t, id, fixtureStart)[:2] // state changes only: no turn, no node change
	})
	var buf bytes.Buffer
	if err := st.Export(context.Background(), &buf, sess.ID, FormatRunResult, ExportOptions{}); err != nil {
		t.Fatalf("export of a session without turns: %v", err)
	}
	if problems := ValidateArtifact(buf.Bytes()); len(problems) != 0 {
		t.Fatalf("the artifact of a session without turns is invalid: %v\n%s", problems, buf.Bytes())
	}
	var rr RunResult
	if err := json.Unmarshal(buf.Bytes(), &rr); err != nil {
		t.Fatal(err)
	}
	if len(rr.Events) != 1 || rr.Events[0].Name != fnNoTurns || rr.Outcome != OutcomeFailed {
		t.Errorf("artifact = %s, want failed with the one %s marker", buf.Bytes(), fnNoTurns)
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"runresult": FormatRunResult, "JSONL": FormatJSONL, "md": FormatMarkdown, "markdown": FormatMarkdown} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("pdf"); err == nil {
		t.Error("ParseFormat(pdf) succeeded")
	}
}

// TestTranscriptExaminerLinesOnce: the controller records every examiner line as a spoken
// event and as the examiner's transcript segment; the transcript shows it once, and a line
// said twice (a repeat command) twice.
func TestTranscriptExaminerLinesOnce(t *testing.T) {
	const prompt = "What would that cost us, and how would we pay for it?"
	seg := func(node, text string) *runtime.TranscriptSegmentPayload {
		return &runtime.TranscriptSegmentPayload{SegmentID: "x", NodeID: node, Speaker: runtime.SpeakerExaminer, Text: text, Confidence: 1, IsFinal: true}
	}
	s := newScript(t, "dedup001", fixtureStart)
	s.after(0, &runtime.NodeEnteredPayload{NodeID: "n", Kind: "assessment"})
	s.after(time.Millisecond, &runtime.SpokenPayload{NodeID: "n", Text: prompt, Source: runtime.SpokenPrompt})
	s.after(time.Millisecond, seg("n", prompt))
	s.after(time.Second, cand("n", "c1", "Sorry, could you repeat that?", 0.9, 1000))
	s.after(time.Millisecond, &runtime.SpokenPayload{NodeID: "n", Text: prompt, Source: runtime.SpokenCommand})
	s.after(time.Millisecond, seg("n", prompt))
	s.after(time.Millisecond, seg("n", "A segment first, its spoken event after."))
	s.after(time.Millisecond, &runtime.SpokenPayload{NodeID: "n", Text: "A segment first, its spoken event after.", Source: runtime.SpokenExaminer})
	s.after(time.Millisecond, seg("n", "Only a segment."))
	sum, err := Summarize(&Session{ID: "dedup001"}, s.events)
	if err != nil {
		t.Fatal(err)
	}
	md := RenderMarkdown(sum, MarkdownOptions{Transcript: true})
	for text, want := range map[string]int{prompt: 2, "A segment first, its spoken event after.": 1, "Only a segment.": 1, "Sorry, could you repeat that?": 1} {
		if got := strings.Count(md, text); got != want {
			t.Errorf("%q appears %d times, want %d:\n%s", text, got, want, md)
		}
	}
}

// TestJSONLEscapesControls: the JSONL export decodes to exactly the stored events, and nothing
// in its bytes is a control or bidirectional character a terminal would obey or reorder (bidi
// controls and C1 controls were written raw).
func TestJSONLEscapesControls(t *testing.T) { forEachEngine(t, testJSONLEscapesControls) }

func testJSONLEscapesControls(t *testing.T, eng testEngine) {
	ctx := context.Background()
	st := eng.open(t)
	recordSession(t, st, "bidi0001", func(id string) []runtime.Event { return hostileEvents(t, id) })
	var buf bytes.Buffer
	if err := st.Export(ctx, &buf, "bidi0001", FormatJSONL, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if i := bytes.IndexFunc(buf.Bytes(), func(r rune) bool { return r != '\n' && textsafe.Unsafe(string(r)) }); i >= 0 {
		t.Fatalf("raw control in the export at %d: %q", i, buf.Bytes()[max(0, i-20):min(buf.Len(), i+20)])
	}
	stored := loadEvents(t, st, "bidi0001")
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != len(stored) {
		t.Fatalf("%d lines for %d events", len(lines), len(stored))
	}
	for i, l := range lines {
		var got, want any
		var ev runtime.Event
		if err := json.Unmarshal(l, &ev); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(ev.Payload, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(stored[i].Payload, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("seq %d: exported payload %v, stored %v", ev.Seq, got, want)
		}
	}
}
