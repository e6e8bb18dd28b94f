package runtime_test

import (
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
)

func TestFanout(t *testing.T) {
	a, b := &runtime.Recorder{}, &runtime.Recorder{}
	store := &runtime.Recorder{}
	f := runtime.NewFanout(a).Chain(runtime.NewFanout(store))
	f.Subscribe(b)
	ev := func(seq int64) runtime.Event {
		e, err := runtime.NewEvent("s", seq, time.Unix(0, 0), &runtime.SpokenPayload{Text: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if err := f.Publish(ev(1)); err != nil {
		t.Fatal(err)
	}
	f.Unsubscribe(b)
	f.Unsubscribe(runtime.SubscriberFunc(func(runtime.Event) {})) // not comparable: ignored, no panic
	if err := f.Publish(ev(2)); err != nil {
		t.Fatal(err)
	}
	if len(a.Events()) != 2 || len(b.Events()) != 1 || len(store.Events()) != 2 || a.Count(runtime.EventSpoken) != 2 {
		t.Fatalf("a %d b %d store %d", len(a.Events()), len(b.Events()), len(store.Events()))
	}
	// A store failure stops delivery: subscribers only ever see stored events.
	g := runtime.NewFanout(a).Chain(&failingSink{after: 0})
	if err := g.Publish(ev(3)); err == nil || len(a.Events()) != 2 {
		t.Fatalf("delivered an unstored event: %v", err)
	}
}

func TestVirtualClock(t *testing.T) {
	c := runtime.NewVirtualClock(t0)
	c.Advance(time.Second)
	c.Advance(-time.Hour)
	if got := c.Now(); !got.Equal(t0.Add(time.Second)) {
		t.Fatalf("now %v", got)
	}
	if d := time.Since(runtime.SystemClock{}.Now()); d < 0 || d > time.Minute {
		t.Fatalf("system clock off by %v", d)
	}
}
