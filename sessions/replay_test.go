package sessions

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// manualClock fires After channels only when the test advances it.
type manualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []manualWaiter
	regs    int
	changed chan struct{}
}

type manualWaiter struct {
	at time.Time
	ch chan time.Time
}

func newManualClock() *manualClock {
	return &manualClock{now: fixtureStart, changed: make(chan struct{})}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.waiters = append(c.waiters, manualWaiter{c.now.Add(d), ch})
	c.regs++
	close(c.changed)
	c.changed = make(chan struct{})
	return ch
}

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.ch <- c.now
		} else {
			kept = append(kept, w)
		}
	}
	c.waiters = kept
}

// awaitRegistrations blocks until After has been called n times in all.
func (c *manualClock) awaitRegistrations(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		regs, ch := c.regs, c.changed
		c.mu.Unlock()
		if regs >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("player never waited (%d of %d waits)", regs, n)
		}
	}
}

func gapEvents(t *testing.T, gaps ...time.Duration) []runtime.Event {
	s := newScript(t, "replay01", fixtureStart)
	for _, g := range gaps {
		s.after(g, &runtime.TimeWarningPayload{Scope: runtime.WarningExam, RemainingSec: 60})
	}
	return s.events
}

func expectNone(t *testing.T, got <-chan runtime.Event) {
	t.Helper()
	select {
	case ev := <-got:
		t.Fatalf("seq %d emitted early", ev.Seq)
	default:
	}
}

func expectSeq(t *testing.T, got <-chan runtime.Event, seq int64) {
	t.Helper()
	if ev := testutil.Recv(t, got, 10*time.Second, "seq %d to be emitted", seq); ev.Seq != seq {
		t.Fatalf("emitted seq %d, want %d", ev.Seq, seq)
	}
}

func TestPlayerTiming(t *testing.T) {
	clock := newManualClock()
	evs := gapEvents(t, 0, time.Second, 5*time.Second, 500*time.Millisecond, 300*time.Millisecond)
	p, err := NewPlayer(SliceEvents(evs), WithClock(clock), WithSpeed(2), WithGapCap(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan runtime.Event, 16)
	done := make(chan error, 1)
	go func() {
		done <- p.Run(context.Background(), func(ev runtime.Event) error { got <- ev; return nil })
	}()
	expectSeq(t, got, 1) // the first event goes at once

	clock.awaitRegistrations(t, 1) // 1 s gap at 2× = 500 ms
	clock.Advance(499 * time.Millisecond)
	expectNone(t, got)
	clock.Advance(time.Millisecond)
	expectSeq(t, got, 2)

	clock.awaitRegistrations(t, 2) // 5 s gap capped to 2 s, at 2× = 1 s
	clock.Advance(500 * time.Millisecond)
	expectNone(t, got)
	if err := p.SetSpeed(4); err != nil { // 1 s of original time left, at 4× = 250 ms
		t.Fatal(err)
	}
	clock.awaitRegistrations(t, 3)
	clock.Advance(249 * time.Millisecond)
	expectNone(t, got)
	clock.Advance(time.Millisecond)
	expectSeq(t, got, 3)

	clock.awaitRegistrations(t, 4) // waiting 500 ms at 4× for seq 4 when paused
	p.Pause()
	clock.Advance(time.Hour)
	expectNone(t, got)
	p.Step()
	expectSeq(t, got, 4)
	if _, paused, emitted := p.State(); !paused || emitted < 3 {
		t.Errorf("after step: paused=%v emitted=%d", paused, emitted)
	}
	expectNone(t, got)
	p.Resume()
	clock.awaitRegistrations(t, 5) // 300 ms at 4× = 75 ms
	clock.Advance(75 * time.Millisecond)
	expectSeq(t, got, 5)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestPlayerCancelAndErrors(t *testing.T) {
	if _, err := NewPlayer(SliceEvents(nil), WithSpeed(32)); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("speed 32: %v", err)
	}
	if _, err := NewPlayer(SliceEvents(nil), WithSpeed(0.25)); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("speed 0.25: %v", err)
	}
	clock := newManualClock()
	p, err := NewPlayer(SliceEvents(gapEvents(t, 0, time.Second)), WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetSpeed(17); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("SetSpeed(17) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, func(runtime.Event) error { return nil }) }()
	clock.awaitRegistrations(t, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel = %v", err)
	}
	stop := errors.New("stop")
	p2, _ := NewPlayer(SliceEvents(gapEvents(t, 0, 0)), WithClock(clock))
	if err := p2.Run(context.Background(), func(runtime.Event) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("emit error = %v", err)
	}
}

func TestPlayerFromStore(t *testing.T) { forEachEngine(t, testPlayerFromStore) }

func testPlayerFromStore(t *testing.T, eng testEngine) {
	st := eng.open(t)
	recordExam(t, st, "replay02")
	p, err := NewPlayer(st.Events(context.Background(), "replay02", 1), WithSpeed(16), WithGapCap(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	if err := p.Run(context.Background(), func(ev runtime.Event) error { seqs = append(seqs, ev.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 43 || seqs[42] != 43 {
		t.Errorf("replayed %d events", len(seqs))
	}
}
