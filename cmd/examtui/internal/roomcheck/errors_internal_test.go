package roomcheck

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime/headless"
)

// TestFirstChunkTimeoutCause waits for a reply that never comes: with the room up the timeout
// has no cause; with the candidate's connection down it carries the transport error as its
// cause, reachable through errors.Is and errors.As and shown in its message.
func TestFirstChunkTimeoutCause(t *testing.T) {
	down := fmt.Errorf("%w: the candidate's connection closed (phase=transport)", ErrTransport)
	cases := []struct {
		name  string
		alive func(time.Duration) error
		cause error
	}{
		{"room up", func(time.Duration) error { return nil }, nil},
		{"connection down at the deadline", func(grace time.Duration) error {
			if grace > 0 {
				return nil // not down for long enough to end the wait early
			}
			return down
		}, down},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newListener()
			_, err := l.awaitReply(context.Background(), time.Now(), waitOpts{firstTimeout: 50 * time.Millisecond, tail: time.Second,
				maxReply: time.Second, alive: tc.alive})
			if !errors.Is(err, ErrFirstChunkTimeout) {
				t.Fatalf("err %v: not a first-chunk timeout", err)
			}
			var fc *FirstChunkTimeoutError
			if !errors.As(err, &fc) || fc.Timeout != 50*time.Millisecond || fc.Cause != tc.cause {
				t.Fatalf("err %#v, want cause %v", err, tc.cause)
			}
			if got := errors.Is(err, ErrTransport); got != (tc.cause != nil) {
				t.Errorf("errors.Is(err, ErrTransport) = %v", got)
			}
			if tc.cause != nil && !strings.Contains(err.Error(), "(phase=first-chunk); cause: "+tc.cause.Error()) {
				t.Errorf("message %q does not show the cause", err)
			}
		})
	}
}

// TestInterruption decides how interrupt steps interrupt, for a transport with and without a
// native interrupt: a transport without one falls back to a timing-based barge-in and says so.
func TestInterruption(t *testing.T) {
	none := capabilities{Transport: "test", NativeInterrupt: false}
	cases := []struct {
		name       string
		caps       capabilities
		asked      string
		spoken     bool
		want, note string
	}{
		{"typed, default", liveKitCapabilities, "", false, headless.InterruptNative, ""},
		{"spoken, default", liveKitCapabilities, "", true, headless.InterruptTiming, ""},
		{"spoken, native asked", liveKitCapabilities, headless.InterruptNative, true, headless.InterruptNative, ""},
		{"typed, timing asked", liveKitCapabilities, headless.InterruptTiming, false, headless.InterruptTiming, ""},
		{"no native, spoken", none, headless.InterruptNative, true, headless.InterruptTiming, "has no native interrupt"},
		{"no native, typed", none, "", false, headless.InterruptTiming, "needs a spoken candidate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, note := tc.caps.interruption(tc.asked, tc.spoken)
			if got != tc.want || (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
				t.Errorf("interruption(%q, spoken %v) = %q, %q; want %q with a note containing %q", tc.asked, tc.spoken, got, note, tc.want, tc.note)
			}
		})
	}
}
