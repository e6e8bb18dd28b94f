package runtime

import (
	"fmt"
	"strings"
)

// DecisionTrace reads a session's events as the list of decisions the controller made: the
// node path and each exit's reason, follow-ups, evidence accepted and rejected, guardrail
// interceptions, commands, instructions, examiner failover and the end. Each decision is one
// line with no time, sequence number, segment id or wording of the examiner's, so two runs of
// the same answers through different paths (typed, voice, a room, a worker, a resume, the
// Pipecat module) give equal traces exactly when they decided alike; the parity suite compares
// them line by line.
func DecisionTrace(events []Event) ([]string, error) {
	var out []string
	for _, e := range events {
		p, err := e.Decode()
		if err != nil {
			return nil, fmt.Errorf("seq %d: %w", e.Seq, err)
		}
		if line := traceLine(p); line != "" {
			out = append(out, line)
		}
	}
	return out, nil
}

func traceLine(p Payload) string {
	switch p := p.(type) {
	case *NodeEnteredPayload:
		return "enter " + p.NodeID
	case *NodeExitPayload:
		return fmt.Sprintf("exit %s %s -> %s", p.NodeID, p.Reason, orNone(p.Next))
	case *FollowUpIssuedPayload:
		return fmt.Sprintf("follow_up %s %s %d/%d", p.NodeID, p.FollowUpType, p.Count, p.Max)
	case *EvidenceUpdatePayload:
		line := fmt.Sprintf("evidence %s %s %s", p.NodeID, p.SignalType, orNone(p.RubricLevel))
		if p.Misconception != nil {
			line += " misconception " + p.Misconception.Concept
		}
		return line
	case *RecoveryPayload:
		if p.Kind != RecoveryLowConfidence {
			return "" // barge-ins and calm support depend on timing, not on the answers
		}
		return fmt.Sprintf("rejected %s %s %s", p.NodeID, p.SignalType, p.Kind)
	case *GuardrailTriggeredPayload:
		return fmt.Sprintf("guardrail %s %s %s", p.NodeID, p.Guardrail, p.Action)
	case *CommandAcknowledgedPayload:
		return fmt.Sprintf("command %s %s accepted=%t", orNone(p.NodeID), p.Command, p.Accepted)
	case *AdminInstructionPayload:
		if p.Mode == AdminControl {
			return fmt.Sprintf("control %s %s", p.Text, p.Status)
		}
		return fmt.Sprintf("admin %s %s", p.Mode, p.Status)
	case *ExaminerSwitchedPayload:
		return fmt.Sprintf("examiner_switched %s -> %s (%s)", p.From, orNone(p.To), p.Policy)
	case *ExamCompletedPayload:
		return fmt.Sprintf("completed %s %s", p.State, strings.Join(p.NodesVisited, ","))
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// TraceDiff says where two decision traces part: "" when they are equal, else the first
// differing line of each with the lines before it for context.
func TraceDiff(want, got []string) string {
	n := min(len(want), len(got))
	i := 0
	for i < n && want[i] == got[i] {
		i++
	}
	if i == n && len(want) == len(got) {
		return ""
	}
	var b strings.Builder
	for j := max(0, i-3); j < i; j++ {
		fmt.Fprintf(&b, "  %3d   %s\n", j+1, want[j])
	}
	line := func(t []string) string {
		if i < len(t) {
			return t[i]
		}
		return "(trace ends)"
	}
	fmt.Fprintf(&b, "  %3d - %s\n  %3d + %s\n", i+1, line(want), i+1, line(got))
	fmt.Fprintf(&b, "  (%d decisions wanted, %d got)", len(want), len(got))
	return b.String()
}
