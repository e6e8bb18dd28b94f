package spec

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Fixed parts of the task message template (pipecat-adapter §4, build_task_message).
const (
	reportObservationReminder = "After every candidate response, call report_observation with your " +
		"assessment of the response, any evidence signals you detected, " +
		"and what you want to say next."
	consistencyDirective = "CONSISTENCY: Use the same questioning approach for all candidates. " +
		"Do not vary your level of scaffolding or hint-giving based on " +
		"perceived candidate ability. Maintain a consistent tone and " +
		"difficulty level throughout the assessment."
	defaultRoleMessage = "You are an examiner conducting an oral assessment."
	otherPartsNote     = "EVIDENCE FROM OTHER PARTS OF THE EXAM (do not ask for it here; " +
		"if the candidate gives it anyway, report it with report_observation as any other signal):"
)

// buildTaskMessage renders a node's developer message. It reads only what the LLM may see:
// scenario, opening, evidence vocabulary (descriptions and levels, never cues), follow-up
// examples and prompt-level constraints. Successors and transition reasons are never read here.
// heard is every signal the exam's nodes listen for: those of other nodes are listed too, as
// evidence to report when the candidate gives it here, never to ask for.
func buildTaskMessage(n *Node, vocab map[string]*EvidenceDef, heard []string, maxFollowUps int) string {
	var parts []string
	if s := strings.TrimSpace(n.Scenario); s != "" {
		parts = append(parts, "SCENARIO: "+s)
	}
	if p := strings.TrimSpace(n.ConversationPrompt); p != "" {
		parts = append(parts, "OPENING: "+p)
	}
	listFor := func(signals []string) string {
		lines := make([]string, 0, len(signals))
		for _, sig := range signals {
			e := vocab[sig]
			if e == nil {
				continue
			}
			lines = append(lines, fmt.Sprintf("- %s: %s (levels: %s)", e.SignalType, strings.TrimSpace(e.Description), strings.Join(e.Levels, ", ")))
		}
		return strings.Join(lines, "\n")
	}
	if l := listFor(n.EvidenceSignals); l != "" {
		parts = append(parts, "EVIDENCE TO LISTEN FOR:\n"+l)
	}
	if l := listFor(n.TransversalSkills); l != "" {
		parts = append(parts, "TRANSVERSAL SKILLS TO LISTEN FOR:\n"+l)
	}
	var others []string
	for _, sig := range heard {
		if !slices.Contains(n.EvidenceSignals, sig) && !slices.Contains(n.TransversalSkills, sig) {
			others = append(others, sig)
		}
	}
	if l := listFor(others); l != "" {
		parts = append(parts, otherPartsNote+"\n"+l)
	}
	if len(n.FollowUpProbes) > 0 {
		keys := make([]string, 0, len(n.FollowUpProbes))
		for k := range n.FollowUpProbes {
			keys = append(keys, k)
		}
		// Probes follow the node's signal order so the prompt reads like the spec.
		order := append(append([]string(nil), n.EvidenceSignals...), n.TransversalSkills...)
		sort.SliceStable(keys, func(i, j int) bool {
			a, b := indexOf(order, keys[i]), indexOf(order, keys[j])
			if a != b {
				return a < b
			}
			return keys[i] < keys[j]
		})
		var lines []string
		for _, k := range keys {
			for _, q := range n.FollowUpProbes[k] {
				lines = append(lines, fmt.Sprintf("- %s: %s", k, strings.TrimSpace(q)))
			}
		}
		parts = append(parts, "EXAMPLE FOLLOW-UP QUESTIONS (use or adapt when a signal is missing):\n"+strings.Join(lines, "\n"))
	}
	var guard []string
	if maxFollowUps > 0 {
		guard = append(guard, fmt.Sprintf("- Maximum %d follow-up %s", maxFollowUps, plural(maxFollowUps, "question", "questions")))
	} else {
		guard = append(guard, "- No follow-up questions")
	}
	if n.TimeBudgetSec > 0 {
		guard = append(guard, fmt.Sprintf("- Time budget: %d seconds", n.TimeBudgetSec))
	}
	if len(n.AllowedActions) > 0 {
		guard = append(guard, "- ALLOWED: "+strings.Join(n.AllowedActions, ", "))
	}
	if len(n.ForbiddenActions) > 0 {
		guard = append(guard, "- NEVER: "+strings.Join(n.ForbiddenActions, ", "))
	}
	parts = append(parts, "CONSTRAINTS:\n"+strings.Join(guard, "\n"))
	parts = append(parts, reportObservationReminder, consistencyDirective)
	return strings.Join(parts, "\n\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
