package llm

import (
	"math/rand/v2"
	"time"
)

// backoff is the wait before retry number attempt (1-based): the server's Retry-After when it
// gave one, else exponential from the base with equal jitter (half fixed, half random), capped.
func (e *Examiner) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := e.cfg.backoffMax
	if shift := attempt - 1; shift < 30 {
		if b := e.cfg.backoffBase << shift; b > 0 && b < d {
			d = b
		}
	}
	return d/2 + rand.N(d/2+1)
}
