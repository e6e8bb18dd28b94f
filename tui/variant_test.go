package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

// TestTranscriptShowsVariant: the console's transcript says which variant of the question the
// candidate got when the node is entered.
func TestTranscriptShowsVariant(t *testing.T) {
	m := newTestModel(t, hotelInfo, &fakeBackend{}, WithEventClock())
	r := newRecorder(t, "s", fixtureStart)
	r.at(time.Second, &runtime.NodeEnteredPayload{NodeID: "case", Kind: "assessment", Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 2},
		Variant: "spa", VariantDraw: runtime.DrawBalanced})
	m.Apply(r.events...)
	got := Plain(strings.Join(viewAt(transcriptOf(m), 80, 6), "\n"))
	if !strings.Contains(got, "── case (node 1 of 2, variant spa) ──") {
		t.Errorf("transcript:\n%s", got)
	}
}
