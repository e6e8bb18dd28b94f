// Package lkconfig holds the configuration checks the room client (transport/livekit) and the agent
// worker (transport/livekit/agent) both make, so the two reject the same addresses and delays with
// the same words. Each package passes its own ErrInvalidConfig to wrap.
package lkconfig

import (
	"fmt"
	"net/url"
	"time"
)

// CheckServerURL rejects a LiveKit server address without a host or whose scheme is not ws, wss,
// http or https.
func CheckServerURL(raw string, invalid error) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%w: server URL %q", invalid, raw)
	}
	switch u.Scheme {
	case "ws", "wss", "http", "https":
		return nil
	default:
		return fmt.Errorf("%w: server URL scheme %q (want ws, wss, http or https)", invalid, u.Scheme)
	}
}

// CheckBackoff rejects reconnection delays that are not positive or whose bound is below the
// first delay; what names the attempts in the message ("rejoin", "reconnect").
func CheckBackoff(what string, minDelay, maxDelay time.Duration, invalid error) error {
	if minDelay <= 0 || maxDelay < minDelay {
		return fmt.Errorf("%w: %s backoff %s..%s", invalid, what, minDelay, maxDelay)
	}
	return nil
}
