package runtime

// segment is a candidate transcript segment kept for STT provenance.
type segment struct {
	id         string
	norm       string
	confidence float64
}

// sttVerdict is the speech-confidence gate's judgement of one signal (EVD-010).
type sttVerdict struct {
	// summary is the min/max/mean confidence of the segments the signal cites; the ledger and
	// the evidence_update keep it.
	summary STTSummary
	// heard is the confidence the gate judges: that of the best hearing of the excerpt.
	heard float64
}

// passes reports whether the signal clears sttMinConfidence.
func (v sttVerdict) passes(minConf float64) bool { return v.heard >= minConf }

// judgeExcerpt gates a signal by the segments its excerpt cites, among the node's kept segments
// (live and on resume the same ones, rebuilt by keepSegment):
//   - a segment whose words contain the excerpt carries it whole: one clear such segment is
//     enough, so an answer repeated clearly after a doubtful attempt counts, while the doubtful
//     attempt alone does not;
//   - segments whose words lie within the excerpt carry a part of it (an excerpt joining two
//     turns): each distinct part needs one clear hearing;
//   - an excerpt that matches no segment (the examiner paraphrased) cites the current turn's.
//
// The best of the two ways is what the gate judges; the summary is over every cited segment, so
// a reviewer still sees a doubtful attempt behind accepted evidence (min) next to the clear one
// (max).
func judgeExcerpt(excerpt string, segs []segment, current segment) sttVerdict {
	ex := normalizeWords(excerpt)
	var cited []float64
	whole := -1.0                 // the best segment holding the whole excerpt; -1: none
	parts := map[string]float64{} // the best hearing of each distinct segment inside the excerpt
	if len(ex) > 2 {
		for _, s := range segs {
			if len(s.norm) <= 2 {
				continue
			}
			switch {
			case containsNormSub(s.norm, ex):
				whole = max(whole, s.confidence)
			case containsNormSub(ex, s.norm):
				parts[s.norm] = max(parts[s.norm], s.confidence)
			default:
				continue
			}
			cited = append(cited, s.confidence)
		}
	}
	if len(cited) == 0 {
		return sttVerdict{summary: summarise([]float64{current.confidence}), heard: current.confidence}
	}
	heard := whole
	if len(parts) > 0 {
		weakest := 1.0
		for _, c := range parts {
			weakest = min(weakest, c)
		}
		heard = max(heard, weakest)
	}
	return sttVerdict{summary: summarise(cited), heard: heard}
}

// summarise is the min/max/mean of confidences (at least one).
func summarise(confs []float64) STTSummary {
	sum := STTSummary{Min: confs[0], Max: confs[0]}
	total := 0.0
	for _, c := range confs {
		sum.Min = min(sum.Min, c)
		sum.Max = max(sum.Max, c)
		total += c
	}
	sum.Mean = total / float64(len(confs))
	return sum
}

// containsNormSub reports whether normalized a contains normalized b on word boundaries
// (both carry the leading and trailing space normalizeWords adds).
func containsNormSub(a, b string) bool {
	return len(b) <= len(a) && stringsContains(a, b)
}

// sttGate judges a signal's excerpt against the node's segments, with current as the turn's own
// segment. The turn (evidenceStep) and the streaming prediction of whether the reply will be
// said (predictSpeaks) both ask it. Caller holds mu.
func (c *Controller) sttGate(excerpt string, current segment) (sttVerdict, bool) {
	v := judgeExcerpt(excerpt, c.segments, current)
	return v, v.passes(c.exam.Policies.STTMinConfidence)
}
