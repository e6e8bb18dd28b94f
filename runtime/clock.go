package runtime

import (
	"context"
	"sync"
	"time"
)

// Clock tells the controller the time. Budgets, deadlines and event timestamps all come from it,
// so tests and candidate scripts run on a VirtualClock without sleeping.
type Clock interface{ Now() time.Time }

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns the current wall time.
func (SystemClock) Now() time.Time { return time.Now() }

// VirtualClock is a manually advanced clock for tests and scripted runs.
type VirtualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewVirtualClock returns a clock that reads start until advanced.
func NewVirtualClock(start time.Time) *VirtualClock { return &VirtualClock{now: start} }

// Now returns the virtual time.
func (c *VirtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d (negative durations are ignored: time never runs back).
func (c *VirtualClock) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Sleep waits d on the wall clock, or less if ctx ends first; it returns ctx's error then, else
// nil. The controller's speak gate and the voice harness (cmd/examtui/internal/roomcheck) wait with it.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
