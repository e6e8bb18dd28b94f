package tui

import (
	"fmt"

	"github.com/examtui/examtui/runtime"
)

// evidenceKind distinguishes the rows of a node's evidence group.
type evidenceKind int

const (
	evidenceAccepted evidenceKind = iota
	evidenceRejected
	evidenceMisconception
)

// evidenceRow is one ledger row with its rendered lines cached.
type evidenceRow struct {
	kind        evidenceKind
	signal      string
	level       string
	confidence  float64
	sttMin      float64
	excerpt     string
	reason      string // why a signal was rejected
	transversal bool
	otherNode   bool // another node's signal, heard in this one
	mis         runtime.Misconception
	cache       lineCache
}

// evidenceGroup is one node's ledger: its coverage header and its rows.
type evidenceGroup struct {
	node               string
	accepted, required int
	header             lineCache
	rows               []evidenceRow
}

// evidencePane shows the evidence ledger grouped by node, in the order nodes were entered.
type evidencePane struct {
	groups []*evidenceGroup
	byNode map[string]*evidenceGroup
	scroll scroller
	paneSize
	st    *Styles
	total int // accepted signals across the exam
}

func newEvidencePane(st *Styles) *evidencePane {
	return &evidencePane{st: st, byNode: map[string]*evidenceGroup{}}
}

func (p *evidencePane) title() string { return "Evidence" }

func (p *evidencePane) badge() string { return fmt.Sprintf("%d accepted", p.total) }

func (p *evidencePane) group(node string) *evidenceGroup {
	if g, ok := p.byNode[node]; ok {
		return g
	}
	g := &evidenceGroup{node: node}
	p.byNode[node] = g
	p.groups = append(p.groups, g)
	return g
}

func (p *evidencePane) scrollBy(n int) { p.scroll.by(n) }

func (p *evidencePane) invalidate() {
	for _, g := range p.groups {
		g.header.invalidate()
		for i := range g.rows {
			g.rows[i].cache.invalidate()
		}
	}
}

func (p *evidencePane) apply(_ runtime.Event, pl runtime.Payload) {
	switch v := pl.(type) {
	case *runtime.NodeEnteredPayload:
		if v.Kind == "assessment" || len(v.EvidenceTargets) > 0 {
			g := p.group(v.NodeID)
			if v.RequiredEvidenceCount > 0 {
				g.required = v.RequiredEvidenceCount
			}
			g.header.invalidate()
		}
	case *runtime.EvidenceUpdatePayload:
		g := p.group(v.NodeID)
		if v.Misconception != nil && v.SignalType == "" {
			g.rows = append(g.rows, evidenceRow{kind: evidenceMisconception, mis: *v.Misconception})
			return
		}
		g.rows = append(g.rows, evidenceRow{kind: evidenceAccepted, signal: v.SignalType, level: v.RubricLevel,
			confidence: v.Confidence, sttMin: v.STTConfidence.Min, excerpt: v.Excerpt, transversal: v.Transversal, otherNode: v.OtherNode})
		if v.Misconception != nil {
			g.rows = append(g.rows, evidenceRow{kind: evidenceMisconception, mis: *v.Misconception})
		}
		g.accepted, g.required = v.Accepted, max(v.Required, g.required)
		g.header.invalidate()
		p.total++
	case *runtime.RecoveryPayload:
		if v.SignalType == "" {
			return
		}
		g := p.group(v.NodeID)
		reason := v.Kind.String()
		if v.Detail != "" {
			reason += ": " + v.Detail
		}
		g.rows = append(g.rows, evidenceRow{kind: evidenceRejected, signal: v.SignalType, reason: reason})
	}
}

func (g *evidenceGroup) renderHeader(st *Styles) func(int) []string {
	return func(width int) []string {
		count := fmt.Sprintf(" %d/%d", g.accepted, g.required)
		frac := 0.0
		if g.required > 0 {
			frac = float64(g.accepted) / float64(g.required)
		} else {
			count = fmt.Sprintf(" %d", g.accepted)
		}
		barW := min(12, max(width/4, 4))
		name := fit(g.node, max(width-barW-len(count)-1, 1))
		return []string{st.Title.Render(name) + " " + bar(st, frac, barW) + st.Muted.Render(count)}
	}
}

func (r *evidenceRow) render(st *Styles) func(int) []string {
	return func(width int) []string {
		switch r.kind {
		case evidenceRejected:
			return indent(wrapPrefixed([]span{{"✗ " + r.signal + " rejected", st.Rejected}}, " — "+oneLine(r.reason), &st.Rejected, width-2, 2), "  ")
		case evidenceMisconception:
			text := fmt.Sprintf("%s: %s", r.mis.Concept, oneLine(r.mis.Misconception))
			if r.mis.Correction != "" {
				text += " (correct: " + oneLine(r.mis.Correction) + ")"
			}
			return indent(wrapPrefixed([]span{{"! misconception ", st.Misconception}}, text, nil, width-2, 2), "  ")
		default:
			head := []span{{"✓ ", st.Good}, {r.signal, st.Signal}}
			meta := ""
			if r.level != "" {
				meta += " · " + r.level
			}
			meta += fmt.Sprintf(" · %.2f", r.confidence)
			if r.transversal {
				meta += " · transversal"
			}
			if r.otherNode {
				meta += " · another part's"
			}
			lines := indent(wrapPrefixed(append(head, span{meta, st.Level}), "", nil, width-2, 2), "  ")
			if r.excerpt != "" {
				ex := wrapPlain("“"+oneLine(r.excerpt)+"”", max(width-4, 1))
				for _, l := range ex {
					lines = append(lines, "    "+st.Muted.Render(l))
				}
			}
			return lines
		}
	}
}

func indent(lines []string, pad string) []string {
	for i := range lines {
		lines[i] = pad + lines[i]
	}
	return lines
}

func (p *evidencePane) walk(width int, fn func([]string) bool) {
	for gi := len(p.groups) - 1; gi >= 0; gi-- {
		g := p.groups[gi]
		if !walkNewest(g.rows, fn, func(r *evidenceRow) []string { return r.cache.get(width, r.render(p.st)) }) ||
			!fn(g.header.get(width, g.renderHeader(p.st))) {
			return
		}
	}
}

func (p *evidencePane) view() []string {
	if len(p.groups) == 0 {
		return []string{p.st.Muted.Render("no evidence yet")}
	}
	return p.scroll.windowMarked(p.walk, p.width, p.height, p.st)
}
