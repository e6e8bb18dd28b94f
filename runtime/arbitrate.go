package runtime

import (
	"fmt"
	"slices"
)

// arbitrateCommand decides which candidate command, if any, a turn dispatches (decision step 2).
//
// The candidate's explicit request wins. The rule-based classifier (ClassifyCommand) matches
// only standalone short command utterances ("Could you repeat the question, please?", "Please
// slow down a bit."), so when it matches, the candidate asked for something, and no
// classification of the examiner's takes that away: not an answer it thought it heard
// (substantive, or signals), not another command. The same rule holds whatever the examiner
// (the LLM, the offline one, or a Pipecat bot's report through `examtui controller`), since
// every path decides here:
//   - distress outranks every command: a distressed "I want to stop" takes the distress path;
//   - the candidate's explicit command is dispatched; the source is the examiner when it saw
//     the same command, the safety net otherwise (the trace says what it set aside);
//   - else a command the examiner reports is dispatched.
//
// Evidence the examiner reported in the same turn is kept (decide).
func arbitrateCommand(valid bool, obs Observation, safety Command) (cmd Command, src CommandSource, why string) {
	switch {
	case valid && obs.DistressDetected:
		if c := firstCommand(obs.CommandDetected, safety); c != "" {
			return "", "", fmt.Sprintf("(%s set aside: distress outranks every command)", c)
		}
		return "", "", ""
	case safety == "" && valid && obs.CommandDetected != "":
		return obs.CommandDetected, CommandByExaminer, ""
	case safety == "":
		return "", "", ""
	case !valid:
		return safety, CommandBySafetyNet, "(examiner reply unusable)"
	case obs.CommandDetected == safety:
		return safety, CommandByExaminer, ""
	case obs.CommandDetected != "":
		return safety, CommandBySafetyNet, fmt.Sprintf("(the candidate asked for %s: the examiner's %s set aside)", safety, obs.CommandDetected)
	case len(obs.Signals) > 0 || obs.AnswerQuality == QualitySubstantive:
		return safety, CommandBySafetyNet, "(the candidate's request outranks the examiner's answer classification)"
	}
	return safety, CommandBySafetyNet, ""
}

func firstCommand(cs ...Command) Command {
	for _, c := range cs {
		if c != "" {
			return c
		}
	}
	return ""
}

// evidenceStep is decision step 4 without side effects: deduplicated signals, split into those
// accepted for the ledger and those rejected for low STT confidence (EVD-010, judged by the
// segments each signal cites: sttGate).
func (c *Controller) evidenceStep(in *turnInput, obs Observation) (accepted []LedgerEntry, rejected []RecoveryPayload, dups int) {
	node := c.node
	minConf := c.exam.Policies.STTMinConfidence
	seen := make(map[string]bool, len(obs.Signals))
	for _, s := range obs.Signals {
		if seen[s.SignalType] || c.ledger.Has(node.NodeID, s.SignalType) {
			dups++
			continue
		}
		seen[s.SignalType] = true
		v, ok := c.sttGate(s.Excerpt, in.seg)
		if !ok {
			rejected = append(rejected, RecoveryPayload{Kind: RecoveryLowConfidence, NodeID: node.NodeID, SignalType: s.SignalType,
				Detail: fmt.Sprintf("segment confidence %.2f below sttMinConfidence %.2f", v.heard, minConf)})
			continue
		}
		accepted = append(accepted, LedgerEntry{NodeID: node.NodeID, Turn: in.turn, SignalType: s.SignalType,
			RubricLevel: s.RubricLevel, Excerpt: s.Excerpt, Confidence: s.Confidence, STTConfidence: v.summary,
			Transversal:          slices.Contains(node.Controller.TransversalSkills, s.SignalType) && !slices.Contains(node.Controller.EvidenceSignals, s.SignalType),
			OtherNode:            !node.ListensFor(s.SignalType),
			ScaffoldingIntensity: s.ScaffoldingIntensity, ScaffoldingEffective: s.ScaffoldingEffective})
	}
	return accepted, rejected, dups
}

// recordEvidence writes step 4's outcome: recovery events for rejected signals, ledger entries
// and evidence_update events for accepted ones (with their scaffolding), and misconceptions.
func (c *Controller) recordEvidence(in *turnInput, accepted []LedgerEntry, rejected []RecoveryPayload, misconceptions []Misconception) {
	node := c.node
	for i := range rejected {
		c.emit(&rejected[i])
	}
	targets := node.Controller.EvidenceSignals
	for _, e := range accepted {
		c.ledger.add(e)
		c.emit(&EvidenceUpdatePayload{NodeID: node.NodeID, SignalType: e.SignalType, RubricLevel: e.RubricLevel,
			Excerpt: e.Excerpt, Confidence: e.Confidence, STTConfidence: e.STTConfidence, Coverage: c.ledger.Coverage(node.NodeID, targets),
			Accepted: len(c.ledger.Covered(node.NodeID, targets)), Required: node.Controller.RequiredEvidenceCount, Transversal: e.Transversal,
			OtherNode: e.OtherNode, ScaffoldingIntensity: e.ScaffoldingIntensity, ScaffoldingEffective: e.ScaffoldingEffective})
	}
	for _, m := range misconceptions {
		c.ledger.misconceptions = append(c.ledger.misconceptions, MisconceptionEntry{NodeID: node.NodeID, Turn: in.turn, Misconception: m})
		mc := m
		c.emit(&EvidenceUpdatePayload{NodeID: node.NodeID, SignalType: "misconception", Excerpt: TruncateRunes(m.Misconception, MaxExcerptRunes),
			Coverage: c.ledger.Coverage(node.NodeID, targets), Required: node.Controller.RequiredEvidenceCount,
			Accepted: len(c.ledger.Covered(node.NodeID, targets)), Misconception: &mc})
	}
}
