package eventprint_test

import (
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/eventprint"
	"github.com/examtui/examtui/runtime"
)

// TestContextSummaryPrinted: a model summary prints as one readable line (the node, how many
// messages, the text quoted on one line), not as its raw JSON.
func TestContextSummaryPrinted(t *testing.T) {
	ev, err := runtime.NewEvent("s1", 9, time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC), &runtime.ContextSummaryPayload{
		NodeID: "scenario-hotel-breakfast", Compression: 1, Messages: 8, Summary: "The candidate proposed\na hybrid buffet.\x1b[2J"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := eventprint.Append(nil, ev, false)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"context_summary", `scenario-hotel-breakfast: 8 older messages summarised by the model: "The candidate proposed a hybrid buffet.`} {
		if !strings.Contains(got, want) {
			t.Errorf("line %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, `"compression"`) || strings.Count(got, "\n") != 1 || strings.Contains(got, "\x1b") {
		t.Errorf("not one readable line: %q", got)
	}
}
