package eventprint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/eventprint"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
)

func TestMain(m *testing.M) {
	time.Local = time.UTC // the readable line shows local time
	os.Exit(m.Run())
}

var at = time.Date(2026, 11, 25, 9, 30, 15, 123e6, time.UTC)

// samples holds one event of every payload type the readable line summarises, and one it
// shows as raw payload. They are written as the wire's JSON, the contract the printer reads.
func samples(t *testing.T) []runtime.Event {
	t.Helper()
	payloads := []struct {
		event   runtime.EventType
		payload string
	}{
		{runtime.EventExamState, `{"state":"in_progress","previous":"ready","reason":"started"}`},
		{runtime.EventExamState, `{"state":"scaffolding"}`},
		{runtime.EventNodeEntered, `{"nodeId":"welcome","kind":"scaffolding","maxFollowUps":2,"progress":{"currentNodeIndex":1,"totalNodes":4}}`},
		{runtime.EventNodeEntered, `{"nodeId":"rota","kind":"scenario","maxFollowUps":2,"progress":{"currentNodeIndex":3,"totalNodes":4},"reason":"evidence_sufficient"}`},
		{runtime.EventNodeExit, `{"nodeId":"welcome","reason":"evidence_sufficient","next":"breakfast","elapsedMs":4018,"followUps":0,"evidenceCount":2}`},
		{runtime.EventNodeExit, `{"nodeId":"wrapup","reason":"end","elapsedMs":12,"followUps":0,"evidenceCount":0}`},
		{runtime.EventTranscriptSegment, `{"segmentId":"s1","nodeId":"welcome","speaker":"candidate","text":"Hello,   I'm Priya\nfrom the course.","confidence":1,"timestampMs":0,"durationMs":0,"isFinal":true}`},
		{runtime.EventTranscriptSegment, `{"segmentId":"s2","nodeId":"welcome","speaker":"examiner","text":"","confidence":1,"timestampMs":0,"durationMs":0,"isFinal":true}`},
		{runtime.EventObservation, `{"nodeId":"welcome","turn":1,"examiner":"offline","valid":true,"decision":{"action":"transition","reason":"evidence_sufficient"},"latency":{}}`},
		{runtime.EventObservation, `{"nodeId":"welcome","turn":2,"examiner":"offline","valid":false,"problems":["no signals","bad level"],"decision":{"action":"continue"},"latency":{}}`},
		{runtime.EventEvidenceUpdate, `{"nodeId":"breakfast","signalType":"proposes_options","rubricLevel":"analysis","excerpt":"open a second buffet line","confidence":0.9,"sttConfidenceSummary":{"min":1,"max":1,"mean":1},"coverage":0.5,"accepted":1,"required":2}`},
		{runtime.EventEvidenceUpdate, `{"nodeId":"breakfast","signalType":"","excerpt":"","confidence":0,"sttConfidenceSummary":{"min":0,"max":0,"mean":0},"coverage":0,"accepted":0,"required":0,"misconception":{"concept":"c","correction":"d"}}`},
		{runtime.EventFollowUpIssued, `{"nodeId":"breakfast","followUpType":"probe","count":1,"max":2}`},
		{runtime.EventCommandAcknowledged, `{"command":"repeat","accepted":true,"source":"examiner","detail":"said again"}`},
		{runtime.EventCommandAcknowledged, `{"command":"skip","accepted":false,"source":"examiner"}`},
		{runtime.EventTimeWarning, `{"scope":"node","nodeId":"rota","remainingSec":30}`},
		{runtime.EventGuardrailTriggered, `{"guardrail":"answer_leak","nodeId":"rota","action":"replaced","originalText":"The answer is 42","replacementText":"Think about it."}`},
		{runtime.EventRecovery, `{"kind":"stt_low_confidence","signalType":"proposes_options","detail":"0.31 < 0.5"}`},
		{runtime.EventRecovery, `{"kind":"llm_retry"}`},
		{runtime.EventAdminInstruction, `{"mode":"queued","text":"Ask about staffing.","sender":"console:lee","status":"received"}`},
		{runtime.EventBeatFired, `{"message":"Half way.","scope":"exam","atSec":600}`},
		{runtime.EventSpoken, `{"nodeId":"welcome","text":"Welcome.","source":"intro"}`},
		{runtime.EventSystemError, `{"code":"examiner_failed","message":"timeout after 30s"}`},
		{runtime.EventNodeEntered, `{"nodeId":"case","kind":"assessment","maxFollowUps":1,"progress":{"currentNodeIndex":1,"totalNodes":2},"variant":"spa","variantDraw":"balanced"}`},
		{runtime.EventExamCompleted, `{"state":"completed","durationMs":24400,"nodesVisited":["welcome","wrapup"],"evidence":{},"coverage":{}}`},
		{runtime.EventExaminerSwitched, `{"from":"llm","to":"offline","failures":3}`},
		{runtime.EventSpeechUsage, `{"stage":"stt","model":"whisper-1","seconds":3.92,"nodeId":"welcome"}`},
		{runtime.EventSpeechUsage, `{"stage":"tts","model":"tts-1","characters":118,"nodeId":"welcome"}`},
		{runtime.EventCallUsage, `{"call":"speculation","nodeId":"welcome","usage":{"model":"gpt-4o-mini","promptTokens":600,"completionTokens":12}}`},
		{runtime.EventCallUsage, `{"call":"speculation","nodeId":"welcome","usage":{"model":"gpt-4o-mini"},"failed":true}`},
	}
	var evs []runtime.Event
	for i, p := range payloads {
		evs = append(evs, runtime.Event{Event: p.event, SessionID: "s1", Seq: int64(i + 1),
			Timestamp: at.Add(time.Duration(i) * time.Millisecond), Payload: json.RawMessage(p.payload)})
	}
	// A report from outside the journal (the room's gap or forgery warnings) has seq 0.
	return append(evs, runtime.Event{Event: runtime.EventSystemError, SessionID: "s1", Timestamp: at,
		Payload: json.RawMessage(`{"code":"event_gap","message":"event #7 never arrived"}`)})
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got)
}

// TestAppendGolden: the readable and JSON lines of every payload type.
func TestAppendGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		asJSON bool
	}{{"readable.golden", false}, {"json.golden", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var b []byte
			for _, ev := range samples(t) {
				var err error
				if b, err = eventprint.Append(b, ev, tc.asJSON); err != nil {
					t.Fatal(err)
				}
			}
			golden(t, tc.name, b)
			if tc.asJSON {
				for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
					var ev runtime.Event
					if err := json.Unmarshal([]byte(line), &ev); err != nil {
						t.Errorf("line %q is not an event envelope: %v", line, err)
					}
				}
			}
		})
	}
}

// TestReadableIsSafe: hostile text in every summarised field never reaches the line.
func TestReadableIsSafe(t *testing.T) {
	for _, s := range []string{"\x1b]52;c;cGF5bG9hZA==\x07clip", "\x1b[2Jcleared", "c1\u009b31m", "bidi \u202eevil", "cr\rover", "bad \xff", "nl\nnext"} {
		checkSafe(t, s)
	}
}

func FuzzReadable(f *testing.F) {
	for _, s := range []string{"", "answer", "\x1b]0;t\x07", "a\r\nb", "\u202e\x00\x9b"} {
		f.Add(s)
	}
	f.Fuzz(checkSafe)
}

// hostileFields lists, per event type, the text fields a readable line may show.
var hostileFields = map[runtime.EventType][]string{
	runtime.EventExamState:           {"state", "previous", "reason"},
	runtime.EventNodeEntered:         {"nodeId", "kind", "reason", "variant", "variantDraw"},
	runtime.EventNodeExit:            {"nodeId", "reason", "next"},
	runtime.EventTranscriptSegment:   {"speaker", "text"},
	runtime.EventEvidenceUpdate:      {"nodeId", "signalType", "rubricLevel", "excerpt"},
	runtime.EventFollowUpIssued:      {"followUpType"},
	runtime.EventCommandAcknowledged: {"command", "detail"},
	runtime.EventTimeWarning:         {"scope", "nodeId"},
	runtime.EventGuardrailTriggered:  {"guardrail", "action", "originalText", "replacementText"},
	runtime.EventRecovery:            {"kind", "signalType", "detail"},
	runtime.EventAdminInstruction:    {"mode", "status", "text", "sender"},
	runtime.EventBeatFired:           {"scope", "message"},
	runtime.EventSpoken:              {"source", "text"},
	runtime.EventSystemError:         {"code", "message"},
	runtime.EventExamCompleted:       {"state"},
}

func checkSafe(t *testing.T, s string) {
	for typ, fields := range hostileFields {
		fs := map[string]any{}
		for _, f := range fields {
			fs[f] = s
		}
		raw, err := json.Marshal(fs)
		if err != nil {
			t.Fatal(err)
		}
		payloads := []json.RawMessage{raw}
		if typ == runtime.EventExamCompleted {
			payloads = append(payloads, mustJSON(t, map[string][]string{"nodesVisited": {s}}))
		}
		for _, payload := range payloads {
			ev := runtime.Event{Event: typ, SessionID: s, Seq: 1, Timestamp: at, Payload: payload}
			b, err := eventprint.Append(nil, ev, false)
			if err != nil {
				t.Fatal(err)
			}
			line := strings.TrimSuffix(string(b), "\n")
			if strings.Contains(line, "\n") || strings.Contains(line, "\r") || textsafe.Unsafe(line) {
				t.Fatalf("%s: unsafe readable line from %q: %q", typ, s, line)
			}
		}
	}
	// The observation's decision and problems, nested.
	obs := map[string]any{"turn": 1, "valid": false, "problems": []string{s}, "decision": map[string]string{"action": s, "reason": s}}
	ev := runtime.Event{Event: runtime.EventObservation, Seq: 1, Timestamp: at, Payload: mustJSON(t, obs)}
	b, err := eventprint.Append(nil, ev, false)
	if err != nil {
		t.Fatal(err)
	}
	if line := strings.TrimSuffix(string(b), "\n"); strings.ContainsAny(line, "\n\r") || textsafe.Unsafe(line) {
		t.Fatalf("observation: unsafe readable line from %q: %q", s, line)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPrinter: Run prints every event, reports progress, exam_completed and a write error.
func TestPrinter(t *testing.T) {
	evs := samples(t)
	var out bytes.Buffer
	p := eventprint.New(&out, false)
	in := make(chan runtime.Event)
	done := make(chan error, 1)
	go func() { done <- p.Run(in) }()
	for _, ev := range evs[:3] {
		in <- ev
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitFor(ctx, 3); err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	if err := p.WaitFor(short, 4); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitFor(4) before seq 4 = %v, want a deadline error", err)
	}
	select {
	case <-p.Ended():
		t.Fatal("ended before exam_completed")
	default:
	}
	for _, ev := range evs[3:] {
		in <- ev
	}
	close(in)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Ended():
	default:
		t.Fatal("not ended after exam_completed")
	}
	var want []byte
	for _, ev := range evs {
		want, _ = eventprint.Append(want, ev, false)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("printed:\n%s\nwant:\n%s", out.Bytes(), want)
	}
	// The seq-0 report at the end did not move progress back.
	if err := p.WaitFor(ctx, int64(len(evs)-1)); err != nil {
		t.Fatal(err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestPrinterWriteError(t *testing.T) {
	evs := samples(t)
	p := eventprint.New(failingWriter{}, true)
	in := make(chan runtime.Event, len(evs))
	for _, ev := range evs {
		in <- ev
	}
	close(in)
	err := p.Run(in) // drains every event although the first write failed
	if err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("Run = %v, want the write error", err)
	}
	select {
	case <-p.Failed():
	default:
		t.Fatal("Failed not closed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := p.WaitFor(ctx, int64(len(evs)-1)); err != nil {
		t.Fatalf("progress after a write error: %v", err)
	}
}

// TestPrint: watch's loop stops at exam_completed unless keepOpen.
func TestPrint(t *testing.T) {
	evs := samples(t)
	for _, keepOpen := range []bool{false, true} {
		in := make(chan runtime.Event, len(evs))
		for _, ev := range evs {
			in <- ev
		}
		close(in)
		var out bytes.Buffer
		if err := eventprint.Print(context.Background(), in, &out, false, keepOpen); err != nil {
			t.Fatal(err)
		}
		n := strings.Count(out.String(), "\n")
		want := len(evs) - 6 // stops at exam_completed, before the examiner_switched, the usage events and the seq-0 report
		if keepOpen {
			want = len(evs)
		}
		if n != want {
			t.Errorf("keepOpen=%v: %d lines, want %d:\n%s", keepOpen, n, want, out.String())
		}
	}
}
