package runtime

import (
	"fmt"
	"time"

	"github.com/examtui/examtui/spec"
)

// checkGuardrails evaluates decision step 5 without side effects: time budget → follow-up
// limit → evidence sufficiency → off-topic limit → distress. It returns the transition reason
// ("" to stay) and the trace. offTopic is the node's off-topic count including this answer and
// have its accepted targets including this turn's (predicted, on the streaming path).
func (c *Controller) checkGuardrails(obs Observation, offTopic, have int) (spec.Reason, []DecisionStep) {
	node := c.node
	nc := node.Controller
	steps := make([]DecisionStep, 0, 5)
	var reason spec.Reason
	check := func(rule string, fired bool, r spec.Reason, detail string) {
		if reason != "" {
			return
		}
		steps = append(steps, DecisionStep{Rule: rule, Fired: fired, Detail: detail})
		if fired {
			reason = r
		}
	}
	elapsed := c.nodeClock.elapsed(c.clock.Now())
	budget := time.Duration(nc.TimeBudgetSec) * time.Second
	check(guardrailTimeBudget, nc.TimeBudgetSec > 0 && elapsed > budget, spec.ReasonTimeExhausted,
		fmt.Sprintf("%ds of %ds", int(elapsed.Seconds()), nc.TimeBudgetSec))
	check(guardrailFollowUpLimit, obs.NeedsFollowUp && c.followUps >= nc.MaxFollowUps, spec.ReasonFollowUpsExhausted,
		fmt.Sprintf("%d of %d follow-ups", c.followUps, nc.MaxFollowUps))
	if node.Kind == spec.KindScaffolding {
		check(guardrailEvidenceSufficiency, obs.AnswerQuality == QualitySubstantive, spec.ReasonEvidenceSufficient,
			"scaffolding: first substantive answer")
	} else {
		check(guardrailEvidenceSufficiency, obs.EvidenceSufficient && have >= nc.RequiredEvidenceCount, spec.ReasonEvidenceSufficient,
			fmt.Sprintf("examiner says %v, ledger %d of %d", obs.EvidenceSufficient, have, nc.RequiredEvidenceCount))
	}
	check(guardrailOffTopicLimit, obs.AnswerQuality == QualityOffTopic && offTopic >= nc.MaxOffTopicRedirects, spec.ReasonOffTopicLimit,
		fmt.Sprintf("%d of %d off-topic", offTopic, nc.MaxOffTopicRedirects))
	check(guardrailDistress, obs.DistressDetected, spec.ReasonDistress, "")
	return reason, steps
}

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
