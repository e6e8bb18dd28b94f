package llm

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// go-openai's errors carry no response headers, so this transport records the status and
// Retry-After of each attempt into a slot the attempt puts in the request context.

type respMeta struct {
	status     int
	retryAfter time.Duration
	tooLarge   bool // the body passed the cap (limits.go)
	// usageInvalid says why the reply's usage was refused (usage_guard.go); "" when it was not.
	usageInvalid string
}

type metaKey struct{}

func withMeta(ctx context.Context, m *respMeta) context.Context {
	return context.WithValue(ctx, metaKey{}, m)
}

type metaTransport struct {
	base http.RoundTripper
}

func (t *metaTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	m, _ := r.Context().Value(metaKey{}).(*respMeta)
	if m != nil && resp != nil {
		m.status = resp.StatusCode
		m.retryAfter = parseRetryAfter(resp.Header, time.Now())
	}
	capBody(r, resp, m)
	if err == nil {
		guardBody(resp, m) // over the capped body, so the guard never reads past the cap
	}
	return resp, err
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the wrapped transport.
func (t *metaTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// parseRetryAfter reads OpenAI's retry-after-ms, else Retry-After in seconds or as an HTTP date.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// wrapClient copies hc (or a default client) with its transport wrapped.
func wrapClient(hc *http.Client) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	c.Transport = &metaTransport{base: base}
	return &c
}
