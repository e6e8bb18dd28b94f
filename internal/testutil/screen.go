package testutil

import (
	"strings"
	"testing"
	"time"
)

// WaitScreen reads the screen with screen until it contains every one of want, and returns
// that screen. After timeout it fails the test naming what (the step), the first text still
// missing and the last screen seen. screen may fail the test itself (a console that stopped
// answering).
func WaitScreen(t testing.TB, timeout time.Duration, screen func() string, what string, want ...string) string {
	t.Helper()
	var s, missing string
	ok := Poll(timeout, func() bool {
		s = screen()
		missing = ""
		for _, w := range want {
			if !strings.Contains(s, w) {
				missing = w
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("%s: the screen never showed %q within %s:\n%s", what, missing, timeout, s)
	}
	return s
}
