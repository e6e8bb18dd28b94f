package headless_test

import (
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
)

// TestEvidenceFromAnotherNode: a signal of another node is accepted where it is heard, marked
// as such, and covers none of that node's targets (the node still asks its own question).
func TestEvidenceFromAnotherNode(t *testing.T) {
	r := runScript(t, loadScript(t, "testdata/other-node-evidence.yaml"), headless.Options{})
	if !r.Passed {
		t.Fatalf("failed:\n%s", report(r))
	}
	var got []runtime.EvidenceUpdatePayload
	for _, ev := range r.Log {
		if ev.Event != runtime.EventEvidenceUpdate {
			continue
		}
		p, err := ev.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if eu := p.(*runtime.EvidenceUpdatePayload); eu.SignalType == "analyses_clientele" {
			got = append(got, *eu)
		}
	}
	if len(got) != 1 {
		t.Fatalf("analyses_clientele accepted %d times, want once: %+v", len(got), got)
	}
	if e := got[0]; e.NodeID != "scenario-staff-rota" || !e.OtherNode || e.Transversal || e.Accepted != 0 || e.Coverage != 0 || e.RubricLevel != "analysis" {
		t.Errorf("evidence %+v: want heard in scenario-staff-rota, otherNode, covering none of its targets", e)
	}
}
