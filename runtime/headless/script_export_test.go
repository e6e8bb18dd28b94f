package headless

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/examtui/examtui/runtime"
)

func exportEvents(t testing.TB, said string, admin string) []runtime.Event {
	t.Helper()
	at := DefaultStart
	var out []runtime.Event
	add := func(d time.Duration, p runtime.Payload) {
		at = at.Add(d)
		raw, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, runtime.Event{Event: p.EventType(), SessionID: "s", Seq: int64(len(out) + 1), Timestamp: at, Payload: raw})
	}
	add(0, &runtime.ExamStatePayload{State: runtime.StateInProgress})
	add(0, &runtime.NodeEnteredPayload{NodeID: "q", Kind: "assessment"})
	add(40*time.Second, &runtime.TranscriptSegmentPayload{NodeID: "q", Speaker: runtime.SpeakerCandidate, Text: said, Confidence: 0.8, IsFinal: true, Source: runtime.SourceMic})
	add(0, &runtime.ObservationPayload{NodeID: "q", Turn: 1, Decision: runtime.Decision{Action: runtime.DecisionFollowUp, Reason: "probe"}})
	add(time.Second, &runtime.AdminInstructionPayload{Mode: runtime.AdminQueued, Text: admin, Sender: "dr lee", Status: runtime.AdminReceived})
	add(0, &runtime.TranscriptSegmentPayload{NodeID: "q", Speaker: runtime.SpeakerCandidate, DurationMs: 6000, IsFinal: true, Source: runtime.SourceTyped})
	add(0, &runtime.AdminInstructionPayload{Mode: runtime.AdminControl, Text: "end", Sender: "dr lee", Status: runtime.AdminApplied})
	add(0, &runtime.ExamCompletedPayload{State: runtime.StateAborted})
	return out
}

// TestScriptFromEvents: every step kind comes out, the long gap becomes a wait, the spoken turn
// keeps its confidence and the expectations hold the decision.
func TestScriptFromEvents(t *testing.T) {
	b, err := ScriptFromEvents(exportEvents(t, "We could fix it: \"two suppliers\".", "Ask about cost"), ExportOptions{Spec: "exam.yaml", Header: "from s"})
	if err != nil {
		t.Fatal(err)
	}
	want := `# from s
spec: exam.yaml
examiner: offline
turns:
  - wait: 35
  - say: "We could fix it: \"two suppliers\"."
    confidence: 0.8
  - wait: 1
  - admin: {mode: queued, text: "Ask about cost", sender: "dr lee"}
  - silence: 6
  - control: end
expect:
  completed: false
  state: aborted
  visits: [q]
  evidence: {}
  guardrails: {}
  commands: {}
  decisions:
    - "follow_up (probe)"
`
	if string(b) != want {
		t.Errorf("script:\n%s\nwant:\n%s", b, want)
	}
	if _, err := ParseScript("x.yaml", b); err != nil {
		t.Errorf("the exported script does not parse: %v", err)
	}
	if _, err := ScriptFromEvents(nil, ExportOptions{}); err == nil {
		t.Error("no events: no error")
	}
}

// FuzzScriptFromEvents: whatever a candidate said (or an examiner typed), the exported script
// parses and says it back verbatim.
func FuzzScriptFromEvents(f *testing.F) {
	for _, s := range []string{"plain", `quote " and \ backslash`, "yes", "- dash", "# hash", "tab\tand\nnewline", "ünïcödé ✓", "{a: 1}", "'single'", "null"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, said, admin string) {
		said, admin = strings.TrimSpace(said), strings.TrimSpace(admin)
		if said == "" || admin == "" || !utf8.ValidString(said) || !utf8.ValidString(admin) {
			return
		}
		b, err := ScriptFromEvents(exportEvents(t, said, admin), ExportOptions{Spec: "exam.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseScript("x.yaml", b)
		if err != nil {
			t.Fatalf("does not parse: %v\n%s", err, b)
		}
		var gotSay, gotAdmin string
		for _, st := range s.Turns {
			switch {
			case st.Say != nil:
				gotSay = *st.Say
			case st.Admin != nil:
				gotAdmin = st.Admin.Text
			}
		}
		if gotSay != said {
			t.Errorf("say %q came back as %q", said, gotSay)
		}
		if gotAdmin != admin {
			t.Errorf("admin %q came back as %q", admin, gotAdmin)
		}
	})
}
