package tui

import (
	"encoding/json"
	"fmt"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/examgraph"
)

// applyReload shows what became of an edit of the spec (`examtui run --watch`): a rejected
// edit's first positioned error in the footer (the graph overlay lists them all), a staged one
// waiting for the next node, an applied one. The graph pane takes the edit itself (reload).
func (m *Model) applyReload(pl runtime.Payload) {
	p, ok := pl.(*runtime.SpecReloadPayload)
	if !ok {
		return
	}
	switch p.Status {
	case runtime.ReloadRejected:
		msg := "spec edit rejected, the exam keeps the running version"
		if len(p.Errors) > 0 {
			msg = "spec edit rejected: " + oneLine(p.Errors[0])
			if len(p.Errors) > 1 {
				msg += fmt.Sprintf(" (+%d more", len(p.Errors)-1)
				if m.graph != nil {
					msg += ", " + m.keys.Graph.Help().Key + " lists them"
				}
				msg += ")"
			}
		}
		m.setNotice(msg, true)
	case runtime.ReloadStaged:
		m.setNotice("spec edit compiled: it applies from the next node", false)
	case runtime.ReloadApplied:
		m.setNotice("spec edit applied from node "+p.NodeID, false)
	case runtime.ReloadDropped:
		m.setNotice("spec edit not applied: "+oneLine(p.Detail), true)
	}
}

// reload keeps the last spec edit for the overlay; an applied one redraws the graph.
func (p *graphPane) reload(r *runtime.SpecReloadPayload) {
	p.lastReload = r
	if r.Status == runtime.ReloadApplied && len(r.Exam) > 0 {
		var exam spec.Exam
		if json.Unmarshal(r.Exam, &exam) == nil {
			if g, err := examgraph.New(&exam); err == nil {
				p.g = g
			}
		}
	}
}

// reloadLines is the graph overlay's account of the last spec edit.
func (p *graphPane) reloadLines(w int) []string {
	r := p.lastReload
	if r == nil {
		return nil
	}
	st := p.st
	head := "Edit  " + string(r.Status)
	switch r.Status {
	case runtime.ReloadApplied:
		head += " at " + r.NodeID
	case runtime.ReloadStaged:
		head += ": applies from the next node"
	case runtime.ReloadDropped:
		head += ": " + r.Detail
	}
	out := []string{""}
	style := st.Key
	if r.Status == runtime.ReloadRejected || r.Status == runtime.ReloadDropped {
		style = st.Bad
	}
	out = append(out, wrapPrefixed([]span{{"Edit  ", style}}, cleanText(head[len("Edit  "):]), nil, w, 6)...)
	for _, e := range r.Errors {
		out = append(out, wrapPrefixed([]span{{"  ✗ ", st.Bad}}, cleanText(e), nil, w, 4)...)
	}
	return out
}
