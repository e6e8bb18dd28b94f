package offline

import (
	"slices"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// Distress and anxiety are heard in English in every exam as well as in the exam's language
// (a candidate in distress may fall back on English); the rubric-level markers are the
// language's (lang.Offline).
var (
	distressPhrases = lang.English().Offline.Distress
	anxietyPhrases  = lang.English().Offline.Anxiety
)

// detectSignals finds the signals whose cues occur in the text on word boundaries: the node's
// own first, then any other node's (evidence counts whichever node it is heard in). The
// excerpt is the sentence holding the first cue, capped at runtime.MaxExcerptRunes.
func detectSignals(p *lang.Pack, exam *spec.Exam, node *spec.CompiledNode, text string) []runtime.Signal {
	sentences := runtime.SplitSentences(text)
	out := []runtime.Signal{}
	targets := append(append([]string{}, node.Controller.EvidenceSignals...), node.Controller.TransversalSkills...)
	for _, st := range exam.SignalsListenedFor() {
		if !slices.Contains(targets, st) {
			targets = append(targets, st)
		}
	}
	for _, st := range targets {
		def := exam.Signal(st)
		cues := exam.CuesFor(node, st) // the signal's cues and the drawn variant's
		if def == nil || len(cues) == 0 {
			continue
		}
		matched := 0
		excerpt := ""
		for _, cue := range cues {
			if !runtime.MatchPhrase(text, cue) {
				continue
			}
			matched++
			if excerpt == "" {
				for _, s := range sentences {
					if runtime.MatchPhrase(s, cue) {
						excerpt = s
						break
					}
				}
			}
		}
		if matched == 0 {
			continue
		}
		if excerpt == "" {
			excerpt = text
		}
		excerpt = runtime.TruncateRunes(excerpt, runtime.MaxExcerptRunes)
		conf := min(0.95, 0.6+0.1*float64(matched-1))
		out = append(out, runtime.Signal{SignalType: st, RubricLevel: level(p, def, text), Excerpt: excerpt, Confidence: conf})
	}
	return out
}

// level judges the rubric level from the answer. With levelCues authored it is the highest
// level whose cues the answer holds, the first level when it holds none. Without them, a
// heuristic in the exam's language (the pack's offline markers): the first level by default,
// the second when the candidate gives reasons, the third when they weigh alternatives.
func level(p *lang.Pack, def *spec.EvidenceDef, text string) string {
	levels := def.Levels
	if len(levels) == 0 {
		return ""
	}
	i := 0
	if len(def.LevelCues) > 0 {
		for j, l := range levels {
			if matchAny(text, def.LevelCues[l]) {
				i = j
			}
		}
		return levels[i]
	}
	if matchAny(text, p.Offline.Analysis) {
		i = 1
	}
	if matchAny(text, p.Offline.Evaluation) {
		i = 2
	}
	return levels[min(i, len(levels)-1)]
}

// onTopic reports whether the text touches the node's scenarioDomain or any cue of the
// signals the node listens for.
func onTopic(exam *spec.Exam, node *spec.CompiledNode, text string) bool {
	nc := node.Controller
	if len(nc.ScenarioDomain) == 0 {
		return true
	}
	if matchAny(text, nc.ScenarioDomain) {
		return true
	}
	for _, st := range append(append([]string{}, nc.EvidenceSignals...), nc.TransversalSkills...) {
		if matchAny(text, exam.CuesFor(node, st)) {
			return true
		}
	}
	return false
}

func matchAny(text string, phrases []string) bool {
	for _, p := range phrases {
		if runtime.MatchPhrase(text, p) {
			return true
		}
	}
	return false
}
