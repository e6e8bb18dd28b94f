package textsafe_test

import (
	"encoding/json"
	"regexp"

	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/internal/eventprint"
	"github.com/examtui/examtui/internal/mdterm"
	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/tui"
)

// writers renders text s, placed in every text field a person reads, through each human-readable
// writer: the session record (`sessions show`, `sessions export --format markdown`), its
// terminal rendering, the test report and the printed event line.
func writers(t *testing.T, s string) map[string]string {
	t.Helper()
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	sum := &sessions.Summary{
		Session: &sessions.Session{ID: s, ExamID: s, Title: s, Candidate: s, Examiner: s, StartedAt: at,
			EndedAt: at.Add(time.Minute), State: runtime.StateCompleted, SpecPath: s, Recordings: []string{s}},
		Nodes: []*sessions.NodeVisit{{NodeID: s, Kind: s, EnteredAt: at, Reason: runtime.ExitReason(s), Next: s,
			Evidence: []sessions.EvidenceRecord{{At: at, SignalType: s, RubricLevel: s, Excerpt: s,
				Misconception: &runtime.Misconception{Concept: s, Correction: s}}}}},
		Guardrails: []sessions.GuardrailRecord{{At: at, NodeID: s, Guardrail: s, Action: runtime.GuardrailAction(s), OriginalText: s, ReplacementText: s}},
		Commands:   []sessions.CommandRecord{{At: at, NodeID: s, Command: s, Source: runtime.CommandSource(s), Detail: s}},
		Admin:      []sessions.AdminRecord{{At: at, Mode: runtime.AdminMode(s), Text: s, Sender: s, Status: runtime.AdminStatus(s), Node: s}},
		Recoveries: []sessions.RecoveryRecord{{At: at, Kind: runtime.RecoveryKind(s), NodeID: s, SignalType: s, Detail: s}},
		Errors:     []sessions.ErrorRecord{{At: at, Code: s, Message: s, NodeID: s}},
		Transcript: []sessions.TranscriptLine{{At: at, Speaker: "candidate", NodeID: s, Text: s}, {At: at, Speaker: runtime.Speaker(s), NodeID: s, Text: s}},
		FinalState: runtime.StateCompleted,
		StartedAt:  at,
	}
	md := sessions.RenderMarkdown(sum, sessions.MarkdownOptions{Transcript: true})
	show := sessions.RenderMarkdown(sum, sessions.MarkdownOptions{})
	var report strings.Builder
	err := headless.WriteText(&report, &headless.Result{Script: s, Spec: s, Examiner: s, Visits: []string{s, s},
		Evidence: map[string]int{s: 1}, Guardrails: map[string]int{s: 1}, Commands: map[string]int{s: 1},
		Turns:    []headless.TurnResult{{Turn: 1, NodeID: s, Said: s, Decision: s}},
		Failures: []headless.Failure{{Expectation: s, Expected: s, Actual: s}}, State: runtime.StateCompleted})
	if err != nil {
		t.Fatal(err)
	}
	var printed, printedJSON []byte
	var evs []runtime.Event
	for _, typ := range []runtime.EventType{runtime.EventTranscriptSegment, runtime.EventSystemError, runtime.EventNodeEntered} {
		fields, _ := json.Marshal(map[string]string{"speaker": s, "text": s, "code": s, "message": s, "nodeId": s, "kind": s})
		ev := runtime.Event{Event: typ, Seq: 1, Timestamp: at, Payload: fields}
		evs = append(evs, ev)
		printed, _ = eventprint.Append(printed, ev, false)
		printedJSON, _ = eventprint.Append(printedJSON, ev, true)
	}
	var jsonl strings.Builder
	all := func(yield func(runtime.Event, error) bool) {
		for _, ev := range evs {
			if !yield(ev, nil) {
				return
			}
		}
	}
	if err := sessions.WriteJSONL(&jsonl, all); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"console (run, watch, replay, monitor's exam view)": consoleFrame(t, s, at),
		"printed event (run --headless, watch --plain)":     string(printed),
		"printed JSON event (--json)":                       string(printedJSON),
		"jsonl export":                                      jsonl.String(),
		"markdown export":                                   md,
		"sessions show":                                     show,
		"show on a terminal (mdterm)":                       mdterm.Render(show, 80),
		"test report":                                       report.String(),
	}
}

// consoleFrame is the console's frame after events carrying s in every text field a pane shows.
func consoleFrame(t *testing.T, s string, at time.Time) string {
	t.Helper()
	payloads := []runtime.Payload{
		&runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady, Nodes: []string{s}, Reason: s},
		&runtime.NodeEnteredPayload{NodeID: s, Kind: s, Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 1}, MaxFollowUps: 2, RequiredEvidenceCount: 1},
		&runtime.SpokenPayload{NodeID: s, Text: s, Source: runtime.SpokenExaminer},
		&runtime.TranscriptSegmentPayload{SegmentID: s, NodeID: s, Speaker: runtime.SpeakerCandidate, Text: s, Confidence: 1, IsFinal: true},
		&runtime.EvidenceUpdatePayload{NodeID: s, SignalType: s, RubricLevel: s, Excerpt: s, Accepted: 1, Required: 1,
			Misconception: &runtime.Misconception{Concept: s, Misconception: s, Correction: s}},
		&runtime.GuardrailTriggeredPayload{Guardrail: s, NodeID: s, Action: runtime.GuardrailAction(s), OriginalText: s, ReplacementText: s, Detail: s},
		&runtime.CommandAcknowledgedPayload{Command: s, NodeID: s, Accepted: true, Detail: s},
		&runtime.AdminInstructionPayload{Mode: runtime.AdminImmediate, Text: s, Sender: s, NodeID: s, Status: runtime.AdminNotActionable},
		&runtime.RecoveryPayload{Kind: runtime.RecoveryLowConfidence, NodeID: s, SignalType: s, Detail: s},
		&runtime.SystemErrorPayload{Code: runtime.ErrorCode(s), Message: s, NodeID: s},
	}
	m, err := tui.New(tui.Info{Title: s, Examiner: s, SessionID: s, ReadOnly: true}, nil, tui.WithNoColor(true), tui.WithEventClock(), tui.WithTickInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range payloads {
		ev, err := runtime.NewEvent("s1", int64(i+1), at, p)
		if err != nil {
			t.Fatal(err)
		}
		m.Apply(ev)
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	// The console's own styling (colours and attributes) is the one escape it writes.
	return consoleSGR.ReplaceAllString(m.Render(), "")
}

var consoleSGR = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// unsafeIn returns the first thing in out a terminal would obey: a control character other
// than a line break or tab, a carriage return, a bidirectional control or invalid UTF-8.
func unsafeIn(out string) (string, bool) {
	for _, line := range strings.Split(out, "\n") {
		if textsafe.Unsafe(line) || strings.ContainsRune(line, '\r') {
			return line, true
		}
	}
	return "", false
}

func TestWritersDropTerminalEscapes(t *testing.T) {
	hostile := []string{
		"\x1b]52;c;cGF5bG9hZA==\x07clipboard",
		"\x1b[2J\x1b[Hcleared",
		"bell\x07\x07",
		"title\x1b]0;owned\x1b\\",
		"c1\u009b31mred",
		"bidi \u202eevil\u202c",
		"cr\roverwrite",
		"bad utf8 \xff\xfe",
	}
	for _, s := range hostile {
		for name, out := range writers(t, s) {
			if line, bad := unsafeIn(out); bad {
				t.Errorf("%s keeps a terminal escape from %q in line %q", name, s, line)
			}
		}
	}
	// Text survives, minus the escapes.
	out := writers(t, "plain answer \x1b[31mred\x1b[0m")["markdown export"]
	if !strings.Contains(out, "plain answer") || !strings.Contains(out, "red") {
		t.Errorf("cleaning lost the text:\n%s", out)
	}
}

func FuzzWriters(f *testing.F) {
	for _, s := range []string{"", "answer", "\x1b]52;c;eA==\x07", "a\r\nb\tc", "\u202e\x00\x9b", "|`*_<>#[]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range writers(t, s) {
			if line, bad := unsafeIn(out); bad {
				t.Fatalf("%s keeps a terminal escape from %q in line %q", name, s, line)
			}
		}
	})
}
