package marking

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// Tolerance and triage (docs/marking.md, "Tolerance and triage"). Markers whose levels for a
// criterion are at most the scheme's tolerance apart settle by its rule, unless the markers'
// own totals fall on different sides of a grade boundary (result or band): then, as beyond the
// tolerance, a moderator adjudicates, boundary cases first.

// settleLevel is the final level of a within-tolerance difference. marks are the criterion's
// marks, the first marker's first (by time).
func settleLevel(c *spec.CompiledCriterion, rule string, marks []sessions.Mark) string {
	ranks := make([]int, len(marks))
	for i, m := range marks {
		ranks[i] = c.Rank(m.Level)
	}
	r := ranks[0]
	switch rule {
	case spec.SettleHigher:
		r = slices.Max(ranks)
	case spec.SettleAverage:
		sum := 0
		for _, x := range ranks {
			sum += x
		}
		r = int(math.Floor(float64(sum) / float64(len(ranks)))) // halves round down
	case spec.SettleFirst:
		// ranks[0]
	default: // lower
		r = slices.Min(ranks)
	}
	return levelAt(c, r)
}

// levelAt is the level of rank r (0 is none).
func levelAt(c *spec.CompiledCriterion, r int) string {
	if r <= 0 || r > len(c.Levels) {
		return spec.NoLevel
	}
	return c.Levels[r-1].Name
}

// spread is how many levels apart the highest and lowest of marks are.
func spread(c *spec.CompiledCriterion, marks []sessions.Mark) int {
	lo, hi := math.MaxInt, math.MinInt
	for _, m := range marks {
		r := c.Rank(m.Level)
		lo, hi = min(lo, r), max(hi, r)
	}
	return hi - lo
}

// crossesBoundary reports whether the markers' own totals (each over every criterion they all
// marked) differ in result or grade band: a difference that changes what the candidate gets.
func crossesBoundary(m *spec.CompiledMarking, marks []sessions.Mark) bool {
	totals := map[string]int{}
	count := map[string]int{}
	for _, mk := range marks {
		totals[mk.Marker] += mk.Marks
		count[mk.Marker]++
	}
	var outcome string
	first := true
	for who, t := range totals {
		if count[who] != len(m.Criteria) {
			return false // a marker has not marked everything yet: nothing to compare
		}
		r := ResultOf(m, t)
		o := r.Grade
		if r.Passed != nil && *r.Passed {
			o += "/pass"
		}
		if first {
			outcome, first = o, false
		} else if o != outcome {
			return true
		}
	}
	return false
}

// InSample reports whether a session is in its exam's moderation sample: the sessions whose
// hash of exam and session id ranks lowest, Percent of ids but at least Min (all when fewer).
// The draw depends only on the exam's and sessions' ids, so anyone recomputing it over the same
// sessions gets the same sample.
func InSample(m *spec.CompiledMarking, examID string, ids []string, id string) bool {
	if m.Moderation == nil || (m.Moderation.SamplePercent == 0 && m.Moderation.SampleMin == 0) {
		return false
	}
	n := int(math.Ceil(m.Moderation.SamplePercent / 100 * float64(len(ids))))
	n = min(max(n, m.Moderation.SampleMin), len(ids))
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, func(a, b string) int {
		ha, hb := sampleKey(examID, a), sampleKey(examID, b)
		if ha != hb {
			if ha < hb {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return slices.Contains(sorted[:n], id)
}

func sampleKey(examID, id string) uint64 {
	h := sha256.Sum256([]byte("examtui.sample\x00" + examID + "\x00" + id))
	return binary.BigEndian.Uint64(h[:8])
}
