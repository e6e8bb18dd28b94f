package testutil

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 105*time.Millisecond)
		defer cancel()
		start := time.Now()
		var at []time.Duration
		Every(ctx, 20*time.Millisecond, func() { at = append(at, time.Since(start)) })
		want := []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 60 * time.Millisecond, 80 * time.Millisecond, 100 * time.Millisecond}
		if len(at) != len(want) {
			t.Fatalf("calls at %v, want %v", at, want)
		}
		for i := range want {
			if at[i] != want[i] {
				t.Fatalf("calls at %v, want %v", at, want)
			}
		}
		if took := time.Since(start); took != 105*time.Millisecond {
			t.Fatalf("returned after %v, want when ctx ended (105ms)", took)
		}
	})
}
