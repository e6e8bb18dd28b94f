package spec

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPipecatFlowsPythonModule runs the stdlib tests of contrib/pipecat/examtui_flows.py on a
// fresh export of the example exam: the module turns it into pipecat-flows 1.x NodeConfigs
// (FlowsFunctionSchema with a report_observation handler, ContextStrategyConfig) and the
// handler returns (result, next_node) along the exported transitions.
func TestPipecatFlowsPythonModule(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed to test contrib/pipecat (Debian package python3, installed by make deps): %v", err)
	}
	b, err := ExportPipecatFlows(compileExample(t))
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(t.TempDir(), "exam.flows.json")
	if err := os.WriteFile(doc, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_examtui_flows")
	cmd.Dir = filepath.Join("..", "contrib", "pipecat")
	cmd.Env = append(os.Environ(), "EXAMTUI_FLOWS_JSON="+doc, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest test_examtui_flows: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

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
