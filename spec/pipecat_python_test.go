package spec

import (
	"testing"
)

// TestPipecatFlowsTransitions: every non-end node names a successor for every reason (the
// author's transition, else next); end nodes name none.
func TestPipecatFlowsTransitions(t *testing.T) {
	e := compileExample(t)
	f, err := PipecatFlows(e)
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != PipecatFlowsFormat || f.FormatVersion != 1 || f.Target != PipecatFlowsTarget {
		t.Errorf("format %q %d %q", f.Format, f.FormatVersion, f.Target)
	}
	for _, n := range e.Nodes {
		tr := f.Nodes[n.NodeID].Transitions
		if n.Kind == KindEnd {
			if len(tr) != 0 {
				t.Errorf("end node %s has transitions %v", n.NodeID, tr)
			}
			continue
		}
		for _, r := range Reasons {
			want := n.Controller.Transitions[r]
			if want == "" {
				want = n.Controller.Next
			}
			if tr[r] != want {
				t.Errorf("%s: %s leads to %q, want %q", n.NodeID, r, tr[r], want)
			}
		}
	}
}
