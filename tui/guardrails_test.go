package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// TestGuardrailEntries: an interception shows what was said and what was not; a limit that
// moved the exam on says nothing was said; a time budget with no planned line shows no "was".
func TestGuardrailEntries(t *testing.T) {
	cases := []struct {
		name    string
		payload runtime.Payload
		want    []string
		notWant []string
	}{
		{"replaced line", &runtime.GuardrailTriggeredPayload{Guardrail: "rubric_leak", NodeID: "n", Action: "replace",
			OriginalText: "That is analysis level.", ReplacementText: "Thank you. Go on.", Detail: "rubric term"},
			[]string{"09:00:01 rubric_leak · replace · rubric term", "said: Thank you. Go on.", "was:  That is analysis level."}, nil},
		{"limit moved on", &runtime.GuardrailTriggeredPayload{Guardrail: "off_topic_limit", NodeID: "n", Action: "transition",
			OriginalText: "Let's come back to the situation.", Detail: "off_topic_limit"},
			[]string{"09:00:01 off_topic_limit · transition\n", "said: nothing; the exam moved to the next node", "was:  Let's come back to the situation."},
			[]string{"transition · off_topic_limit"}},
		{"time budget", &runtime.GuardrailTriggeredPayload{Guardrail: "time_budget", NodeID: "n", Action: "transition", Detail: "time_exhausted"},
			[]string{"time_budget · transition · time_exhausted", "said: nothing"}, []string{"was:"}},
		{"recovery", &runtime.RecoveryPayload{Kind: "stt_low_confidence", NodeID: "n", SignalType: "considers_budget", Detail: "0.34 < 0.50"},
			[]string{"recovery stt_low_confidence — considers_budget 0.34 < 0.50"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestModel(t, hotelInfo, &fakeBackend{}, WithEventClock())
			r := newRecorder(t, "s", fixtureStart)
			r.at(time.Second, tc.payload)
			m.Apply(r.events...)
			got := Plain(strings.Join(viewAt(guardrailsOf(m), 80, 10), "\n")) + "\n"
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("has %q:\n%s", w, got)
				}
			}
		})
	}
}
