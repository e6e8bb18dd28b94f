package runtime_test

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// callGap is how long after the candidate's segment with text its observation came, on the
// controller's clock.
func callGap(h *harness, text string) time.Duration {
	h.t.Helper()
	var said time.Time
	for _, ev := range h.rec.Events() {
		switch {
		case ev.Event == runtime.EventTranscriptSegment && strings.Contains(string(ev.Payload), text):
			said = ev.Timestamp
		case ev.Event == runtime.EventObservation && !said.IsZero():
			return ev.Timestamp.Sub(said)
		}
	}
	h.t.Fatalf("no observation after %q", text)
	return 0
}

// TestFirstSpeakGate: the first-speak gate is the short delay before the very first examiner
// call after the greeting (in place of the speak gate); every later call waits the speak gate.
// Before, firstSpeak only held beats back and the first call waited the speak gate like any.
func TestFirstSpeakGate(t *testing.T) {
	for _, tt := range []struct {
		name, gates  string
		env          map[string]string
		first, later time.Duration
	}{
		{"spec", "{firstSpeak: 2, speakGate: 0.5}", nil, 2 * time.Second, 500 * time.Millisecond},
		{"no speak gate", "{firstSpeak: 1.5}", nil, 1500 * time.Millisecond, 0},
		{"BOT_FIRST_SPEAK_GATE_SECS", "{firstSpeak: 2, speakGate: 0.5}", map[string]string{"BOT_FIRST_SPEAK_GATE_SECS": "3"}, 3 * time.Second, 500 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ov, err := runtime.GateOverridesFromEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if err != nil {
				t.Fatal(err)
			}
			h, ex := intoPlan(t, func(s string) string {
				return strings.Replace(s, "  confirmFinish: true\n", "  confirmFinish: true\n  gates: "+tt.gates+"\n", 1)
			}, runtime.WithGateOverrides(ov))
			if got := callGap(h, "My name is Ada."); got != tt.first {
				t.Errorf("first call %v after the turn, want the first-speak gate %v", got, tt.first)
			}
			ex.push(runtimetest.Args{AnswerQuality: "partial", SpokenText: "What else?"}.String())
			h.say("The servers are old.")
			if got := callGap(h, "The servers are old."); got != tt.later {
				t.Errorf("second call %v after the turn, want the speak gate %v", got, tt.later)
			}
		})
	}
}
