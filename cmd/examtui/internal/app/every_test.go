package app

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestEvery(t *testing.T) {
	tests := []struct {
		name     string
		stopAt   int           // fn returns false on this call (0: never)
		cancelAt time.Duration // ctx ends then
		want     int           // calls made
	}{
		{name: "ticks until ctx ends", cancelAt: 3500 * time.Millisecond, want: 3},
		{name: "fn returning false stops it", stopAt: 2, cancelAt: time.Hour, want: 2},
		{name: "no call before the first tick", cancelAt: 999 * time.Millisecond, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), tt.cancelAt)
				defer cancel()
				start := time.Now()
				var calls []time.Duration
				Every(ctx, time.Second, func() bool {
					calls = append(calls, time.Since(start))
					return len(calls) != tt.stopAt
				})
				if len(calls) != tt.want {
					t.Fatalf("calls at %v, want %d calls", calls, tt.want)
				}
				for i, at := range calls {
					if want := time.Duration(i+1) * time.Second; at != want {
						t.Errorf("call %d at %v, want %v", i+1, at, want)
					}
				}
			})
		})
	}
}
