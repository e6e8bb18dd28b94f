package testutil

import "testing"

// SkipIfShort skips the test under -short (make test-short, the quick loop) and says which
// real part it needs: espeak-ng, PortAudio, pocketsphinx. make test runs it. Tests that need
// a LiveKit server get the same from lktest.Start.
func SkipIfShort(t testing.TB, needs string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: this test needs %s (make test runs it)", needs)
	}
}
