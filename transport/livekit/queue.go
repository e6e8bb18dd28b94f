package livekit

import (
	"context"
	"sync"
)

// queue is an unbounded FIFO with a blocking pop. Events and inbound messages go through one so
// that neither the runtime's Publish nor the SDK's data callback ever waits on the network or on
// a slow handler, and nothing is dropped while the room reconnects.
type queue[T any] struct {
	mu      sync.Mutex
	items   []T
	notify  chan struct{}
	busy    bool          // the consumer holds a popped item it has not settled
	drained chan struct{} // closed and replaced when the queue becomes empty and settled
}

func newQueue[T any]() *queue[T] {
	return &queue[T]{notify: make(chan struct{}, 1), drained: make(chan struct{})}
}

// settle tells the queue the consumer is done with the item it popped last.
func (q *queue[T]) settle() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.busy = false
	if len(q.items) == 0 {
		close(q.drained)
		q.drained = make(chan struct{})
	}
}

// drainState reports whether the queue is empty with nothing popped unsettled, and a channel
// closed the next time it becomes so.
func (q *queue[T]) drainState() (bool, <-chan struct{}) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) == 0 && !q.busy, q.drained
}

func (q *queue[T]) push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// pop blocks until an item is available or ctx ends.
func (q *queue[T]) pop(ctx context.Context) (T, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			v := q.items[0]
			var zero T
			q.items[0] = zero
			q.items = q.items[1:]
			q.busy = true
			q.mu.Unlock()
			return v, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			var zero T
			return zero, false
		case <-q.notify:
		}
	}
}
