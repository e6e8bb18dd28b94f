package offline

import (
	"strings"

	"github.com/examtui/examtui/runtime"
)

// directedTarget is the uncovered evidence target a pacing direction points at: the newest
// direction naming a word of the target's id, description, cues or authored probes ("Ask the
// candidate about costs next." points at considers_budget through the cue "cost"). "" when no
// direction names one.
func directedTarget(req *runtime.ExaminerRequest, covered map[string]bool) string {
	nc := req.Node.Controller
	for i := len(req.Directions) - 1; i >= 0; i-- {
		dir := wordSet(req.Directions[i])
		for _, t := range nc.EvidenceSignals {
			if covered[t] {
				continue
			}
			var vocab []string
			vocab = append(vocab, strings.ReplaceAll(t, "_", " "))
			if def := req.Exam.Signal(t); def != nil {
				vocab = append(vocab, def.Description)
			}
			vocab = append(vocab, req.Exam.CuesFor(req.Node, t)...)
			for _, w := range wordsOf(strings.Join(vocab, " ")) {
				if dir[w] {
					return t
				}
			}
		}
	}
	return ""
}

// directionStop are words too common to tie a direction to a target.
var directionStop = map[string]bool{"the": true, "and": true, "candidate": true, "ask": true, "about": true, "next": true,
	"that": true, "this": true, "with": true, "what": true, "their": true, "they": true, "have": true, "more": true,
	"move": true, "towards": true, "close": true, "time": true, "minutes": true, "remain": true, "exam": true, "question": true,
	"puts": true, "forward": true, "two": true, "behind": true, "proposal": true, "explains": true}

// wordsOf returns the stemmed content words of s.
func wordsOf(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) < 4 || directionStop[w] {
			continue
		}
		out = append(out, stemWord(w))
	}
	return out
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range wordsOf(s) {
		m[w] = true
	}
	return m
}

// stemWord strips a plural "s" so "costs" meets "cost".
func stemWord(w string) string {
	if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}
