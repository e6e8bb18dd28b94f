package lkconfig

import (
	"errors"
	"testing"
	"time"
)

var errInvalid = errors.New("invalid")

// wantErr checks err against want: "" for no error, else the exact message of an error that
// wraps errInvalid.
func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("err = %v, want nil", err)
		}
		return
	}
	if !errors.Is(err, errInvalid) || err.Error() != want {
		t.Fatalf("err = %v, want %q wrapping the given error", err, want)
	}
}

func TestCheckServerURL(t *testing.T) {
	cases := []struct {
		url, want string // want "": accepted
	}{
		{"ws://127.0.0.1:7880", ""},
		{"wss://lk.example.org", ""},
		{"http://127.0.0.1:7880/", ""},
		{"https://lk.example.org/base", ""},
		{"", `invalid: server URL ""`},
		{"127.0.0.1:7880", `invalid: server URL "127.0.0.1:7880"`},
		{"ftp://x", `invalid: server URL scheme "ftp" (want ws, wss, http or https)`},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			wantErr(t, CheckServerURL(tc.url, errInvalid), tc.want)
		})
	}
}

func TestCheckBackoff(t *testing.T) {
	cases := []struct {
		name     string
		min, max time.Duration
		want     string
	}{
		{"ordered", 250 * time.Millisecond, 5 * time.Second, ""},
		{"equal", time.Second, time.Second, ""},
		{"zero first delay", 0, time.Second, "invalid: rejoin backoff 0s..1s"},
		{"negative first delay", -time.Second, time.Second, "invalid: rejoin backoff -1s..1s"},
		{"bound below first delay", time.Second, time.Millisecond, "invalid: rejoin backoff 1s..1ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, CheckBackoff("rejoin", tc.min, tc.max, errInvalid), tc.want)
		})
	}
}
