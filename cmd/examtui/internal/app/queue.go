package app

import (
	"sync"

	"github.com/examtui/examtui/runtime"
)

// eventQueue is a Subscriber that never blocks the journal's writer and never drops: events
// pile up in memory until the reader takes them. The console reads from C.
type eventQueue struct {
	C chan runtime.Event

	mu      sync.Mutex
	pending []runtime.Event
	wake    chan struct{}
	done    chan struct{}
	once    sync.Once
}

func newEventQueue() *eventQueue {
	q := &eventQueue{C: make(chan runtime.Event, 256), wake: make(chan struct{}, 1), done: make(chan struct{})}
	go q.run()
	return q
}

// Deliver implements runtime.Subscriber.
func (q *eventQueue) Deliver(ev runtime.Event) {
	q.mu.Lock()
	q.pending = append(q.pending, ev)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *eventQueue) run() {
	defer close(q.C)
	for {
		q.mu.Lock()
		batch := q.pending
		q.pending = nil
		q.mu.Unlock()
		for _, ev := range batch {
			select {
			case q.C <- ev:
			case <-q.done:
				return
			}
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-q.wake:
		case <-q.done:
			return
		}
	}
}

// Close stops the queue; C is closed.
func (q *eventQueue) Close() { q.once.Do(func() { close(q.done) }) }
