package runtimetest

import (
	"testing"

	"github.com/examtui/examtui/runtime"
)

// Payloads returns the decoded payloads of the events whose payload is a P, in stream order;
// an event that does not decode fails the test.
func Payloads[P runtime.Payload](t testing.TB, events []runtime.Event) []P {
	t.Helper()
	var out []P
	for _, ev := range events {
		p, err := ev.Decode()
		if err != nil {
			t.Fatalf("decode %s (seq %d): %v", ev.Event, ev.Seq, err)
		}
		if v, ok := p.(P); ok {
			out = append(out, v)
		}
	}
	return out
}
