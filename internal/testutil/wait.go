package testutil

import (
	"fmt"
	"testing"
	"time"
)

// PollInterval is how often Eventually and Poll check their condition. Inside a
// testing/synctest bubble the sleeps run on the bubble's fake clock and cost nothing.
const PollInterval = 20 * time.Millisecond

// Eventually checks cond every PollInterval until it holds, and fails the test if it still
// does not after timeout. msgf (a format and its arguments) says what was awaited:
//
//	testutil.Eventually(t, 10*time.Second, func() bool { return w.Jobs() == 1 }, "the job to start")
//
// fails with "timed out after 10s waiting for the job to start". One argument is taken as it
// is; more are a format and its arguments.
func Eventually(t testing.TB, timeout time.Duration, cond func() bool, msgf ...any) {
	t.Helper()
	if !Poll(timeout, cond) {
		t.Fatalf("timed out after %s waiting for %s", timeout, describe(msgf))
	}
}

// Poll checks cond every PollInterval until it holds (true) or timeout passes (false), for
// a test that accepts either outcome or reports the failure itself.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if !time.Now().Before(deadline) {
			return cond()
		}
		time.Sleep(min(PollInterval, time.Until(deadline)+time.Millisecond))
	}
	return true
}

// Recv receives one value from ch, failing the test if none arrives within timeout or ch
// is closed. msgf says what was awaited.
func Recv[T any](t testing.TB, ch <-chan T, timeout time.Duration, msgf ...any) T {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatalf("channel closed while waiting for %s", describe(msgf))
		}
		return v
	case <-timer.C:
		t.Fatalf("timed out after %s waiting for %s", timeout, describe(msgf))
	}
	var zero T
	return zero
}

// describe renders msgf: nothing, one value (taken as it is, so a '%' in a message built by
// concatenation is safe), or a format and its arguments.
func describe(msgf []any) string {
	switch len(msgf) {
	case 0:
		return "the condition"
	case 1:
		return fmt.Sprint(msgf[0])
	}
	format, ok := msgf[0].(string)
	if !ok {
		return fmt.Sprint(msgf...)
	}
	return fmt.Sprintf(format, msgf[1:]...)
}
