package headless

import (
	"fmt"
)

// checkDecisions compares the expected decisions with the run's, step by step, so a changed
// spec shows exactly which turn decided differently: one failure per differing turn, naming the
// turn, its node and what the candidate said.
func (r *Result) checkDecisions(e Expect) {
	if e.Decisions == nil {
		return
	}
	want := *e.Decisions
	for i := 0; i < max(len(want), len(r.Turns)); i++ {
		exp, got := "(no decision)", "(no decision)"
		where := fmt.Sprintf("decisions[%d]", i+1)
		if i < len(want) {
			exp = want[i]
		}
		if i < len(r.Turns) {
			t := r.Turns[i]
			got = t.Decision
			said := t.Said
			if said == "" {
				said = "(silence)"
			}
			where = fmt.Sprintf("decisions[%d] turn %d at %s %q", i+1, t.Turn, t.NodeID, clip(said, 40))
		}
		if exp != got {
			r.Failures = append(r.Failures, Failure{Expectation: where, Expected: exp, Actual: got})
		}
	}
}
