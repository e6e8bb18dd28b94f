package livekit

import (
	"context"
	"testing"
)

// TestQueueDrainState: the queue is drained only when it is empty and the consumer has settled
// what it popped, and the drained channel closes at that moment, not before (flush waits on it).
func TestQueueDrainState(t *testing.T) {
	q := newQueue[int]()
	if idle, _ := q.drainState(); !idle {
		t.Fatal("a new queue is not drained")
	}
	q.push(1)
	q.push(2)
	steps := []struct {
		name     string
		do       func()
		wantIdle bool
	}{
		{"two queued", func() {}, false},
		{"one popped, one queued", func() { q.pop(context.Background()) }, false},
		{"the first settled, one queued", q.settle, false},
		{"the last popped, not yet sent", func() { q.pop(context.Background()) }, false},
		{"the last settled", q.settle, true},
	}
	for _, s := range steps {
		_, ch := q.drainState()
		s.do()
		idle, _ := q.drainState()
		if idle != s.wantIdle {
			t.Fatalf("%s: drained = %v, want %v", s.name, idle, s.wantIdle)
		}
		select {
		case <-ch:
			if !s.wantIdle {
				t.Fatalf("%s: the drained signal fired early", s.name)
			}
		default:
			if s.wantIdle {
				t.Fatalf("%s: no drained signal", s.name)
			}
		}
	}
}
