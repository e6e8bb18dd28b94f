package testutil

import (
	"runtime"
	"testing"
	"time"
)

// WithinBudget runs fn and fails t if it took longer than maxTime or allocated more than
// maxBytes in all (the heap's cumulative allocations, an upper bound of what it held at once):
// fuzz targets use it to keep a parser's cost bounded on any input, however hostile. maxTime
// is for a normal build; under the race detector, which slows code several times over, it is
// five times as long (still far below the seconds a quadratic parse takes).
func WithinBudget(t testing.TB, what string, maxTime time.Duration, maxBytes uint64, fn func()) {
	t.Helper()
	if Race {
		maxTime *= 5
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	fn()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxBytes {
		t.Fatalf("%s allocated %d MB (budget %d MB)", what, alloc>>20, maxBytes>>20)
	}
	if took > maxTime {
		t.Fatalf("%s took %v (budget %v)", what, took, maxTime)
	}
}
