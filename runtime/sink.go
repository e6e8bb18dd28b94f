package runtime

import (
	"slices"
	"sync"
)

// Sink receives every event the controller emits, in seq order, before anything else sees it.
// A session store is a Sink; an error stops the controller (an event that cannot be stored is
// never shown).
type Sink interface{ Publish(ev Event) error }

// Subscriber receives events from a Fanout. Deliver must not block: a slow reader buffers or
// drops on its own side.
type Subscriber interface{ Deliver(ev Event) }

// SubscriberFunc adapts a function to Subscriber.
type SubscriberFunc func(ev Event)

// Deliver calls f.
func (f SubscriberFunc) Deliver(ev Event) { f(ev) }

// Fanout is an in-memory Sink that hands each event to its subscribers in order.
type Fanout struct {
	mu   sync.RWMutex
	subs []Subscriber
	next Sink
}

// NewFanout returns a Fanout delivering to subs.
func NewFanout(subs ...Subscriber) *Fanout { return &Fanout{subs: slices.Clone(subs)} }

// Chain makes the Fanout publish to next (a store) before delivering to subscribers, so that
// subscribers only ever see stored events.
func (f *Fanout) Chain(next Sink) *Fanout {
	f.mu.Lock()
	f.next = next
	f.mu.Unlock()
	return f
}

// Subscribe adds a subscriber.
func (f *Fanout) Subscribe(s Subscriber) {
	f.mu.Lock()
	f.subs = append(f.subs, s)
	f.mu.Unlock()
}

// Unsubscribe removes a subscriber (compared by identity; a SubscriberFunc cannot be removed).
func (f *Fanout) Unsubscribe(s Subscriber) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.subs {
		if isSameSubscriber(x, s) {
			f.subs = slices.Delete(f.subs, i, i+1)
			return
		}
	}
}

func isSameSubscriber(a, b Subscriber) (same bool) {
	defer func() {
		if recover() != nil { // uncomparable dynamic types
			same = false
		}
	}()
	return a == b
}

// Publish stores the event in the chained sink, if any, then delivers it to every subscriber.
func (f *Fanout) Publish(ev Event) error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.next != nil {
		if err := f.next.Publish(ev); err != nil {
			return err
		}
	}
	for _, s := range f.subs {
		s.Deliver(ev)
	}
	return nil
}

// Recorder is a Subscriber that keeps every event, for tests, scripted runs and exports.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// Deliver records ev.
func (r *Recorder) Deliver(ev Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// Events returns a copy of the recorded events.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Count returns how many events of type t were recorded.
func (r *Recorder) Count(t EventType) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.Event == t {
			n++
		}
	}
	return n
}
