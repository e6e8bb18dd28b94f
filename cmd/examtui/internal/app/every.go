package app

import (
	"context"
	"time"
)

// Every calls fn every d until ctx ends or fn returns false; the first call is d after the
// start. The polling loops of a running exam and of its consoles (commands from the store, the
// spec watch, the LiveKit room scan, the worker's table) all tick through it.
func Every(ctx context.Context, d time.Duration, fn func() bool) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !fn() {
			return
		}
	}
}
