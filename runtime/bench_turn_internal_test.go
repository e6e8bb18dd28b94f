package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/spec"
)

// longTurns is the basic exam with node and exam budgets long enough that a benchmark's turns
// stay in one node, and the reply its examiner gives every turn (one signal, one line).
func longTurns(b *testing.B) (*spec.Exam, json.RawMessage) {
	exam := compileEdited(b, func(s string) string {
		s = strings.Replace(s, "timeBudgetSec: 120", "timeBudgetSec: 1000000", 1)
		return strings.Replace(s, "totalTimeBudgetSec: 600", "totalTimeBudgetSec: 1000000", 1)
	})
	args := json.RawMessage(`{"signals":[{"signalType":"names_risk","excerpt":"risk","confidence":0.8}],"answerQuality":"partial",
		"needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false,"spokenText":"Please go on with the servers."}`)
	return exam, args
}

// startLong starts exam on a virtual clock with an examiner that always replies args, its
// events encoded but delivered nowhere.
func startLong(b *testing.B, exam *spec.Exam, args json.RawMessage) (*Controller, *VirtualClock) {
	clock := NewVirtualClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	c, err := NewController(exam, fixedExaminer{args}, WithClock(clock), WithSink(NewFanout()))
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	return c, clock
}

// BenchmarkSubmitTurn measures one candidate turn through the public entry point: both locked
// steps of SubmitTurn, the examiner call (a fixed reply, no I/O) and the decision, with every
// event encoded into its envelope. Every turn is in the plan node (long budget).
func BenchmarkSubmitTurn(b *testing.B) {
	exam, args := longTurns(b)
	c, clock := startLong(b, exam, args)
	c.mu.Lock()
	c.enterNode(c.clock.Now(), "plan", "intro", "test")
	c.mu.Unlock()
	ctx := context.Background()
	turn := Turn{Text: "The servers could fail during the move, which is a risk."}
	sampled(b, func(int) {
		clock.Advance(3 * time.Second)
		if err := c.SubmitTurn(ctx, turn); err != nil {
			b.Fatal(err)
		}
	})
	if s := c.Snapshot(); s.State != StateInProgress || s.NodeID != "plan" {
		b.Fatalf("the exam left the node: %s %s", s.State, s.NodeID)
	}
}
