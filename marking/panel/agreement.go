package panel

import (
	"fmt"
	"slices"
)

// judge computes one criterion's figures from its members' final levels.
func judge(c Criterion, levels []MemberLevel, flagSpread int) CriterionResult {
	r := CriterionResult{Criterion: c.ID, Levels: levels}
	ranks := make([]int, 0, len(levels))
	for _, l := range levels {
		ranks = append(ranks, c.levelIndex(l.Level))
	}
	if len(ranks) == 0 {
		r.Flagged, r.Why = true, "no member marked it"
		return r
	}
	sorted := slices.Clone(ranks)
	slices.Sort(sorted)
	r.Proposed = c.Levels[sorted[(len(sorted)-1)/2]]
	r.Spread = sorted[len(sorted)-1] - sorted[0]
	if len(ranks) < 2 {
		r.Flagged, r.Why = true, "only one member marked it"
		return r
	}
	pairs, same := 0, 0
	for i := range ranks {
		for j := i + 1; j < len(ranks); j++ {
			pairs++
			if ranks[i] == ranks[j] {
				same++
			}
		}
	}
	a := float64(same) / float64(pairs)
	r.Agreement = &a
	if r.Spread >= flagSpread {
		r.Flagged, r.Why = true, fmt.Sprintf("levels %d apart (%s to %s)", r.Spread, c.Levels[sorted[0]], c.Levels[sorted[len(sorted)-1]])
	}
	return r
}
