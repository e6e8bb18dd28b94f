package testutil

import (
	"context"
	"time"
)

// Every calls f every d until ctx ends: the pacing loop of tests that feed a microphone or a
// track in real time. f runs on the caller's goroutine, one call at a time.
func Every(ctx context.Context, d time.Duration, f func()) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			f()
		}
	}
}
