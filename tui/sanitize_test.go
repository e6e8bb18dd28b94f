package tui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/runtime"
)

// sgr matches the only escape sequences the console itself writes into a frame: colours and
// attributes.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestHostileTextNeverReachesTheTerminal: text from a room candidate or an LLM carrying escape
// sequences (OSC 52 clipboard writes, cursor moves, a C1 CSI) or line breaks inside ids is
// shown as plain text, and the frame keeps its shape.
func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	const (
		osc52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
		csi   = "\x1b[2J\x1b[H"
		c1    = "\u009b31m"
	)
	r := newRecorder(t, "s-\x1b[31mevil", fixtureStart)
	r.at(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady, Nodes: []string{"node\none", "wrap" + csi}})
	r.at(0, &runtime.NodeEnteredPayload{NodeID: "node\none", Kind: "assessment", MaxFollowUps: 2, TimeBudgetSec: 60,
		Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 2}, RequiredEvidenceCount: 1})
	r.at(time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c1", NodeID: "node\none", Speaker: "candidate",
		Text: "my answer " + osc52 + " and more", Confidence: 1, IsFinal: true, Source: "room"})
	r.at(0, &runtime.EvidenceUpdatePayload{NodeID: "node\none", SignalType: "sig" + c1, Excerpt: "x" + csi, Confidence: 0.9, Accepted: 1, Required: 1,
		Misconception: &runtime.Misconception{Concept: "c" + osc52, Misconception: "m"}})
	r.at(0, &runtime.GuardrailTriggeredPayload{Guardrail: "rubric" + csi, NodeID: "node\none", Action: "replace" + c1,
		OriginalText: "orig " + osc52, ReplacementText: "repl"})
	r.at(0, &runtime.ObservationPayload{NodeID: "node\none", Turn: 1, Examiner: "llm" + csi, Valid: true,
		Raw: rawJSON(map[string]string{"spokenText": osc52}), Decision: runtime.Decision{Action: "continue" + c1,
			Trace: []runtime.DecisionStep{{Rule: "r" + csi, Fired: true, Detail: osc52}}}})
	r.at(0, &runtime.SpokenPayload{NodeID: "node\none", Source: "examiner", Text: "said " + csi})
	r.at(0, &runtime.SystemErrorPayload{Code: "e" + c1, Message: "boom " + osc52})
	for _, debug := range []bool{false, true} {
		m, err := New(Info{Title: "T\x1b]0;pwned\x07itle", Examiner: "offline"}, &fakeBackend{}, WithNoColor(false),
			WithDarkBackground(true), WithEventClock(), WithTickInterval(0))
		if err != nil {
			t.Fatal(err)
		}
		m.Apply(r.events...)
		m.Update(windowSize(160, 50))
		if debug {
			drive(t, m, press("f2"))
		}
		frame := m.Render()
		rest := sgr.ReplaceAllString(frame, "")
		if i := strings.IndexFunc(rest, func(r rune) bool { return r == 0x1b || r == 0x07 || r == 0x9b }); i >= 0 {
			t.Fatalf("debug=%v: a control character reached the frame at %d: %q", debug, i, rest[max(i-20, 0):min(i+20, len(rest))])
		}
		if n := strings.Count(frame, "\n"); n != 49 {
			t.Errorf("debug=%v: frame has %d lines, want 50", debug, n+1)
		}
		plain := Plain(frame)
		for _, want := range []string{"my answer ]52;c;cm0gLXJmIH4= and more", "node one"} {
			if !strings.Contains(plain, want) {
				t.Errorf("debug=%v: frame lacks %q:\n%s", debug, want, plain)
			}
		}
	}
}

func TestNeedsCleaning(t *testing.T) {
	cases := []struct {
		payload string
		want    bool
	}{
		{`{"text":"plain answer, 0.34 \u003c 0.50"}`, false},
		{`{"text":"a \\ backslash and \\u001b as text"}`, false},
		{`{"text":"esc \u001b[2J"}`, true},
		{`{"text":"line\nbreak"}`, true},
		{`{"text":"del \u007F"}`, true},
		{`{"text":"c1 \u009b"}`, true},
		{"{\"text\":\"raw c1 \u009b\"}", true},
		{`{"text":"ビュッフェ"}`, false},
		// Bidirectional controls alone, raw or escaped, reorder what a reader sees: they were
		// passed raw to the panes when nothing else in the payload needed cleaning.
		{"{\"text\":\"abc \u202egnp.exe\"}", true},
		{"{\"text\":\"\u2066x\u2069 \u200f \u061c\"}", true},
		{`{"text":"escaped \u202E override"}`, true},
		{`{"text":"escaped \u2067 isolate"}`, true},
		{`{"text":"en dash \u2013 and \u20ac"}`, false},
	}
	for _, tc := range cases {
		if got := textsafe.JSONUnsafe([]byte(tc.payload)); got != tc.want {
			t.Errorf("JSONUnsafe(%s) = %v, want %v", tc.payload, got, tc.want)
		}
	}
}

// TestBidiOnlyPayloadCleaned: a payload whose only hostile characters are bidirectional
// controls is cleaned too (the pre-check looked only for controls, so "\u202e" reached the
// frame and reversed what the examiner read).
func TestBidiOnlyPayloadCleaned(t *testing.T) {
	r := newRecorder(t, "s-bidi", fixtureStart)
	r.at(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady, Nodes: []string{"n1"}})
	r.at(0, &runtime.NodeEnteredPayload{NodeID: "n1", Kind: "assessment", Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 1}})
	r.at(time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c1", NodeID: "n1", Speaker: "candidate",
		Text: "I agree \u202eexe.txt\u202c and \u2066isolated\u2069 \u200f\u061c", Confidence: 1, IsFinal: true, Source: "room"})
	m, err := New(Info{Title: "T", Examiner: "offline"}, &fakeBackend{}, WithNoColor(true), WithEventClock(), WithTickInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	m.Apply(r.events...)
	m.Update(windowSize(120, 30))
	frame := m.Render()
	if i := strings.IndexAny(frame, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"); i >= 0 {
		t.Fatalf("a bidirectional control reached the frame: %q", frame[max(i-20, 0):min(i+20, len(frame))])
	}
	if !strings.Contains(Plain(frame), "I agree exe.txt and isolated") {
		t.Fatalf("the answer is not shown:\n%s", Plain(frame))
	}
}
