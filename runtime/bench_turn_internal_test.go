package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// BenchmarkSubmitTurn measures one candidate turn through the public entry point: both locked
// sections of SubmitTurn, the examiner call (a fixed reply, no I/O) and the decision, with every
// event encoded into its envelope. The node's and the exam's budgets are long enough that the
// loop stays in the node.
func BenchmarkSubmitTurn(b *testing.B) {
	exam := compileEdited(b, func(s string) string {
		s = strings.Replace(s, "timeBudgetSec: 120", "timeBudgetSec: 100000000", 1)
		return strings.Replace(s, "totalTimeBudgetSec: 600", "totalTimeBudgetSec: 100000000", 1)
	})
	args := json.RawMessage(`{"signals":[{"signalType":"names_risk","excerpt":"risk","confidence":0.8}],"answerQuality":"partial",
		"needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false,"spokenText":"Please go on with the servers."}`)
	clock := NewVirtualClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	c, err := NewController(exam, fixedExaminer{args}, WithClock(clock), WithSink(NewFanout()))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	turn := Turn{Text: "The servers could fail during the move, which is a risk."}
	sampled(b, func(int) {
		clock.Advance(3 * time.Second)
		if err := c.SubmitTurn(ctx, turn); err != nil {
			b.Fatal(err)
		}
	})
	if s := c.Snapshot(); s.State != StateInProgress {
		b.Fatalf("the exam left the node: %s %s", s.State, s.NodeID)
	}
}
