package monitor

import (
	"testing"

	"github.com/examtui/examtui/runtime"
)

// TestRowVariant: the control room's row names the variant of the node the candidate is in,
// and forgets it in a node without variants.
func TestRowVariant(t *testing.T) {
	b, err := NewBoard(Thresholds{})
	if err != nil {
		t.Fatal(err)
	}
	drawn := &runtime.NodeEnteredPayload{NodeID: "case", Kind: "assessment", Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 2},
		Variant: "spa", VariantDraw: runtime.DrawBalanced}
	end := &runtime.NodeEnteredPayload{NodeID: "end", Kind: "end", Progress: runtime.Progress{CurrentNodeIndex: 2, TotalNodes: 2}}
	evs := feed(t, "s1", running, drawn, end)
	b.Apply(evs[0])
	b.Apply(evs[1])
	if got := b.Row("s1").Variant; got != "spa" {
		t.Fatalf("row variant %q after entering spa", got)
	}
	b.Apply(evs[2])
	if got := b.Row("s1").Variant; got != "" {
		t.Errorf("row variant %q in a node without variants", got)
	}
}
