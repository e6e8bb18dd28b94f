package runtime

import (
	"fmt"
	"time"

	"github.com/examtui/examtui/spec"
)

// checkGuardrails evaluates decision step 5 without side effects. The order (docs/exam-format.md,
// "Guardrail order"): distress → time budget → follow-up limit → off-topic limit → a follow-up
// under the limit → evidence sufficiency. It returns the transition reason ("" to stay) and
// the trace. offTopic is the node's off-topic count including this answer and have its accepted
// targets including this turn's (predicted, on the streaming path).
//
// Two choices differ from a literal reading of the design's list, each pinned by a test in
// guardrail_order_test.go:
//   - distress comes first: a distressed candidate reaches the distress path even when time,
//     follow-ups or evidence would have moved them on by another route;
//   - the off-topic limit is checked before a follow-up under the limit, because a redirect is
//     itself a follow-up: otherwise the limit could never fire.
//
// A follow-up under the limit comes before evidence sufficiency, as in the design: while the
// examiner still wants to ask, the candidate gets the question.
func (c *Controller) checkGuardrails(obs Observation, offTopic, have int) (spec.Reason, []DecisionStep) {
	node := c.node
	nc := node.Controller
	steps := make([]DecisionStep, 0, 6)
	var reason spec.Reason
	stay := false
	check := func(rule string, fired bool, r spec.Reason, detail string) {
		if reason != "" || stay {
			return
		}
		steps = append(steps, DecisionStep{Rule: rule, Fired: fired, Detail: detail})
		if fired {
			reason = r
		}
	}
	check(guardrailDistress, obs.DistressDetected, spec.ReasonDistress, "")
	elapsed := c.nodeClock.elapsed(c.clock.Now())
	budget := time.Duration(nc.TimeBudgetSec) * time.Second
	check(guardrailTimeBudget, nc.TimeBudgetSec > 0 && elapsed > budget, spec.ReasonTimeExhausted,
		fmt.Sprintf("%ds of %ds", int(elapsed.Seconds()), nc.TimeBudgetSec))
	check(guardrailFollowUpLimit, obs.NeedsFollowUp && c.followUps >= nc.MaxFollowUps, spec.ReasonFollowUpsExhausted,
		fmt.Sprintf("%d of %d follow-ups", c.followUps, nc.MaxFollowUps))
	check(guardrailOffTopicLimit, obs.AnswerQuality == QualityOffTopic && offTopic >= nc.MaxOffTopicRedirects, spec.ReasonOffTopicLimit,
		fmt.Sprintf("%d of %d off-topic", offTopic, nc.MaxOffTopicRedirects))
	if reason == "" {
		step := DecisionStep{Rule: ruleFollowUpFirst, Fired: obs.NeedsFollowUp}
		if obs.NeedsFollowUp {
			step.Detail = fmt.Sprintf("follow-up %d of %d comes before evidence sufficiency", c.followUps+1, nc.MaxFollowUps)
		}
		steps = append(steps, step)
		stay = obs.NeedsFollowUp
	}
	if node.Kind == spec.KindScaffolding {
		check(guardrailEvidenceSufficiency, obs.AnswerQuality == QualitySubstantive, spec.ReasonEvidenceSufficient,
			"scaffolding: first substantive answer")
	} else {
		check(guardrailEvidenceSufficiency, obs.EvidenceSufficient && have >= nc.RequiredEvidenceCount, spec.ReasonEvidenceSufficient,
			fmt.Sprintf("examiner says %v, ledger %d of %d", obs.EvidenceSufficient, have, nc.RequiredEvidenceCount))
	}
	return reason, steps
}

// ruleFollowUpFirst is the trace step of a follow-up under the limit that keeps the node.
const ruleFollowUpFirst = "follow_up_under_limit"

// reasonGuardrail names the guardrail behind a transition reason ("" when none: evidence
// sufficiency and skips are not interceptions).
func reasonGuardrail(r spec.Reason) string {
	switch r {
	case spec.ReasonTimeExhausted:
		return guardrailTimeBudget
	case spec.ReasonFollowUpsExhausted:
		return guardrailFollowUpLimit
	case spec.ReasonOffTopicLimit:
		return guardrailOffTopicLimit
	case spec.ReasonDistress:
		return guardrailDistress
	}
	return ""
}
