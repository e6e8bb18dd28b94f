package panel

import (
	"strings"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// CriteriaFrom is the scheme's criteria as the members see them: each with spec.NoLevel below
// its levels, since a marker may find no evidence at all, and described by its evidence
// signals with what each means (the exam's evidence descriptions).
func CriteriaFrom(m *spec.CompiledMarking, evidence []spec.EvidenceDef) []Criterion {
	if m == nil {
		return nil
	}
	desc := map[string]string{}
	for _, e := range evidence {
		desc[e.SignalType] = e.Description
	}
	out := make([]Criterion, 0, len(m.Criteria))
	for _, c := range m.Criteria {
		levels := []string{spec.NoLevel}
		for _, l := range c.Levels {
			levels = append(levels, l.Name)
		}
		var signals []string
		for _, s := range c.Signals {
			if d := strings.TrimSpace(desc[s]); d != "" {
				s += " (" + d + ")"
			}
			signals = append(signals, s)
		}
		out = append(out, Criterion{ID: c.ID, Name: c.Title, Description: "evidence signals: " + strings.Join(signals, "; "), Levels: levels})
	}
	return out
}

// SegmentsFrom is the session's final transcript segments, in order: what members may cite.
// Partial (interim) segments are left out; they are superseded by the final one.
func SegmentsFrom(events []runtime.Event) []Segment {
	var out []Segment
	for _, s := range runtime.FinalSegments(events) {
		out = append(out, Segment{ID: s.SegmentID, NodeID: s.NodeID, Speaker: s.Speaker.String(), Text: s.Text})
	}
	return out
}
