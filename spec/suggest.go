package spec

import (
	"sort"
	"strings"
)

// Suggest returns the candidate closest to s by edit distance when it is close enough to be a
// plausible typo, or "". It is the one "did you mean" of examtui: the exam file's fields and
// names, a candidate script's keys, the command line's commands and flags.
func Suggest(s string, candidates []string) string {
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
func hintFor(s, what string, candidates []string) string { return Hint(s, what, candidates) }

// Hint is "did you mean X?" when a candidate is close to s (Suggest), else "known <what>: a,
// b, c": what a message naming something unknown says next.
func Hint(s, what string, candidates []string) string {
	if m := Suggest(s, candidates); m != "" {
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

// editDistance is the optimal string alignment distance between a and b (bytes; names are
// ASCII): Levenshtein's insertions, deletions and substitutions, and a swap of two adjacent
// letters counted as one edit, the commonest typo ("tset" for test).
func editDistance(a, b string) int {
	if a == b {
		return 0
	}
	rows := make([][]int, len(a)+1)
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(a)][len(b)]
}
