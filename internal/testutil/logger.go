package testutil

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// Logger is a slog.Logger writing text records at level and above to the test's log, so a
// failing test shows what the code did. It stops writing when the test ends: goroutines that
// outlive the test (an SDK winding down) may still log, and t.Log after the end panics.
func Logger(t testing.TB, level slog.Level) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

type testWriter struct {
	t    testing.TB
	mu   sync.Mutex
	done bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}
