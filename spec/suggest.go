package spec

import (
	"sort"
	"strings"
)

// suggest returns the candidate closest to s by edit distance when it is close enough to be a
// plausible typo, or "".
func suggest(s string, candidates []string) string {
	best, bestD := "", -1
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := editDistance(ls, strings.ToLower(c))
		if bestD < 0 || d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	if bestD < 0 {
		return ""
	}
	limit := len(s) / 3
	if limit < 2 {
		limit = 2
	}
	if bestD > limit || bestD >= len(s) {
		return ""
	}
	return best
}

// hintFor is "did you mean X?" when a candidate is close, else "known <what>: a, b, c".
func hintFor(s, what string, candidates []string) string {
	if m := suggest(s, candidates); m != "" {
		return "did you mean " + m + "?"
	}
	return knownList(what, candidates)
}

func knownList(what string, candidates []string) string {
	if len(candidates) == 0 {
		return "no " + what + " are defined"
	}
	c := append([]string(nil), candidates...)
	sort.Strings(c)
	const max = 12
	if len(c) > max {
		c = append(c[:max], "…")
	}
	return "known " + what + ": " + strings.Join(c, ", ")
}

// editDistance is the Levenshtein distance between a and b (bytes; field names are ASCII).
func editDistance(a, b string) int {
	if a == b {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
