package tui

import (
	"sync"
	"testing"
	"time"
)

// typingBackend is a fakeBackend that also wants typing reports.
type typingBackend struct {
	fakeBackend
	mu     sync.Mutex
	typing int
}

func (b *typingBackend) Typing() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.typing++
	return nil
}

func (b *typingBackend) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.typing
}

// TestTypingIsReported: typing an answer is candidate activity for a TypingReporter backend
// (the silence check-ins wait for it), reported at most once a second; a backend that is not a
// TypingReporter is never asked.
func TestTypingIsReported(t *testing.T) {
	b := &typingBackend{}
	m := fixtureModel(t, b, 120, 40)
	for _, k := range typed("We could") {
		drive(t, m, k)
	}
	if n := b.count(); n != 1 {
		t.Fatalf("typing reported %d times in under a second, want 1", n)
	}
	m.lastTyping = time.Now().Add(-2 * typingInterval)
	for _, k := range typed(" open") {
		drive(t, m, k)
	}
	if n := b.count(); n != 2 {
		t.Fatalf("typing reported %d times, want 2 after the interval", n)
	}
	m.lastTyping = time.Time{}
	drive(t, m, press("left")) // moves the cursor, changes nothing
	if n := b.count(); n != 2 {
		t.Fatalf("a key that changes nothing was reported as typing (%d)", n)
	}

	plain := &fakeBackend{}
	pm := fixtureModel(t, plain, 120, 40)
	for _, k := range typed("hi") {
		drive(t, pm, k)
	}
	if len(plain.Calls()) != 0 {
		t.Fatalf("calls %q", plain.Calls())
	}
}
