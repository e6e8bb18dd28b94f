package markconsole

import (
	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/marking/panel"
)

// ref is one thing of a criterion that points into the transcript: a piece of the rule's
// evidence or a misconception.
type ref struct {
	segment  string
	evidence *marking.Evidence
	miscon   *marking.Misconception
}

// proposal is the rule's proposal for a criterion, or nil.
func (m *Model) proposal(criterion string) *marking.CriterionProposal {
	if m.sheet == nil || m.sheet.Proposal == nil {
		return nil
	}
	for i := range m.sheet.Proposal.Criteria {
		if m.sheet.Proposal.Criteria[i].Criterion == criterion {
			return &m.sheet.Proposal.Criteria[i]
		}
	}
	return nil
}

// panelView is the panel's result for a criterion, or nil.
func (m *Model) panelView(criterion string) *panel.CriterionResult {
	if m.sheet == nil || m.sheet.Panel == nil {
		return nil
	}
	for i := range m.sheet.Panel.Criteria {
		if m.sheet.Panel.Criteria[i].Criterion == criterion {
			return &m.sheet.Panel.Criteria[i]
		}
	}
	return nil
}

// refs are the selected criterion's evidence, then its misconceptions, in ledger order.
func (m *Model) refs() []ref {
	if m.sheet == nil || m.sheet.Marking == nil {
		return nil
	}
	p := m.proposal(m.current().ID)
	if p == nil {
		return nil
	}
	var out []ref
	for i := range p.Evidence {
		out = append(out, ref{segment: p.Evidence[i].SegmentID, evidence: &p.Evidence[i]})
	}
	for i := range p.Misconceptions {
		out = append(out, ref{segment: p.Misconceptions[i].SegmentID, miscon: &p.Misconceptions[i]})
	}
	return out
}
