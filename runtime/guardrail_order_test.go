package runtime_test

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// guardrailRules is decision step 5 in the order docs/exam-format.md documents, as the
// observation trace names it.
var guardrailRules = []string{"distress", "time_budget", "followup_limit", "off_topic_limit", "follow_up_under_limit", "evidence_sufficiency", "anxiety_neutrality"}

// TestGuardrailOrder sets up a node where several guardrails would fire at once and checks
// that the first in the documented order wins: distress → time budget → follow-up limit →
// off-topic limit → follow-up under the limit → evidence sufficiency → anxiety neutrality →
// continue. Every row starts from the same state (two follow-ups of two used, one off-topic
// answer of two tolerated), so each row differs from the one above it only by switching off
// the guardrail that won there. (The follow-up under the limit needs a fresh node:
// TestFollowUpUnderLimitBeforeSufficiency.)
func TestGuardrailOrder(t *testing.T) {
	followUp := runtimetest.Args{AnswerQuality: "partial", NeedsFollowUp: true, FollowUpType: "probe", SpokenText: "What could go wrong with the servers?"}
	offTopic := runtimetest.Args{AnswerQuality: "off_topic", SpokenText: "What do you think of this plan?"}
	two := []runtime.Signal{sig("names_risk", "nothing was tested"), sig("proposes_fix", "rehearse the move")}
	// everything would fire: the time budget is spent by the row's clock advance.
	all := runtimetest.Args{Signals: two, AnswerQuality: "off_topic", NeedsFollowUp: true, FollowUpType: "probe", EvidenceSufficient: true,
		DistressDetected: true, AnxietyDetected: true, SpokenText: "Good answer! What would you test first on the servers?"}
	without := func(o runtimetest.Args, f func(*runtimetest.Args)) runtimetest.Args { f(&o); return o }
	noDistress := without(all, func(o *runtimetest.Args) { o.DistressDetected = false })
	noFollowUp := without(noDistress, func(o *runtimetest.Args) { o.NeedsFollowUp = false })
	noOffTopic := without(noFollowUp, func(o *runtimetest.Args) { o.AnswerQuality = "partial" })
	noEvidence := without(noOffTopic, func(o *runtimetest.Args) { o.Signals = nil })
	calm := without(noEvidence, func(o *runtimetest.Args) {
		o.AnxietyDetected = false
		o.SpokenText = "What would you test first on the servers?"
	})

	tests := []struct {
		name     string
		overtime bool
		obs      runtimetest.Args
		fired    string // the guardrail rule that fires ("" none)
		reason   string // transition reason ("" none)
		node     string
		action   runtime.DecisionAction
		said     string // the last spoken line contains this
	}{
		{"distress first, even out of time", true, all, "distress", "distress", "after-distress", "transition", "(distress)"},
		{"then the time budget", true, noDistress, "time_budget", "time_exhausted", "after-time", "transition", "(time)"},
		{"then the follow-up limit", false, noDistress, "followup_limit", "followups_exhausted", "after-followups", "transition", "(follow-ups)"},
		{"then the off-topic limit", false, noFollowUp, "off_topic_limit", "off_topic_limit", "after-offtopic", "transition", "(off topic)"},
		{"then evidence sufficiency", false, noOffTopic, "evidence_sufficiency", "evidence_sufficient", "after-evidence", "transition", "(evidence)"},
		{"then anxiety neutrality", false, noEvidence, "anxiety_neutrality", "", "plan", "continue", "Take your time."},
		{"then continue", false, calm, "", "", "plan", "continue", "What would you test first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, ex := intoPlan(t, nil)
			ex.push(followUp.String(), followUp.String(), offTopic.String())
			h.say("The servers are old.")
			h.say("They sit in the basement.")
			h.say("I watched a film last night.")
			if s := h.c.Snapshot(); s.NodeID != "plan" {
				t.Fatalf("set-up left the node: %+v", s)
			}
			if tt.overtime {
				h.clock.Advance(120 * time.Second)
			}
			ex.push(tt.obs.String())
			h.say("Nothing was tested and I would rehearse the move, but I feel awful.")

			o := h.lastObservation()
			if o.Decision.Action != tt.action || o.Decision.Reason != tt.reason && tt.reason != "" {
				t.Fatalf("decision %+v, want %s %s", o.Decision, tt.action, tt.reason)
			}
			// The trace evaluates the guardrails in order and stops at the first that fires.
			var rules []string
			fired := ""
			for _, st := range o.Decision.Trace {
				for _, r := range guardrailRules {
					if st.Rule == r {
						rules = append(rules, r)
						if st.Fired {
							if fired != "" {
								t.Errorf("%s fired after %s", r, fired)
							}
							fired = r
						}
					}
				}
			}
			if fired != tt.fired {
				t.Fatalf("fired %q, want %q (trace %+v)", fired, tt.fired, o.Decision.Trace)
			}
			n := len(guardrailRules)
			if tt.reason != "" {
				n = indexOf(guardrailRules, tt.fired) + 1
			}
			// follow_up_under_limit is traced (not fired) after the checks before it.
			if strings.Join(rules, ",") != strings.Join(guardrailRules[:n], ",") {
				t.Fatalf("trace rules %v, want %v", rules, guardrailRules[:n])
			}
			if s := h.c.Snapshot(); s.NodeID != tt.node {
				t.Fatalf("node %s, want %s", s.NodeID, tt.node)
			}
			if sp := h.spoken(); !strings.Contains(sp[len(sp)-1], tt.said) {
				t.Fatalf("last said %q, want %q", sp[len(sp)-1], tt.said)
			}
			// A transition names its guardrail (evidence sufficiency is not an interception).
			var guards []*runtime.GuardrailTriggeredPayload
			for _, g := range payloads[*runtime.GuardrailTriggeredPayload](h) {
				// "Good answer!" is a forbidden judgement whatever the decision; it is checked below.
				if g.Guardrail != "forbidden_action" {
					guards = append(guards, g)
				}
			}
			for _, sp := range h.spoken() {
				if strings.Contains(sp, "Good answer") {
					t.Fatalf("a forbidden judgement was spoken: %q", sp)
				}
			}
			want := tt.fired
			if want == "evidence_sufficiency" {
				want = ""
			}
			if want == "" && len(guards) != 0 || want != "" && (len(guards) != 1 || guards[0].Guardrail != want) {
				t.Fatalf("guardrail events %+v, want %q", guards, want)
			}
			h.checkSeq()
		})
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
