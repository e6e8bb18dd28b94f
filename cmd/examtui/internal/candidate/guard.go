package candidate

import (
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The join API's limits per client address: a burst for a classroom behind one address, then a
// steady rate. A code is 128 random bits, so the limit is about load, not guessing.
const (
	JoinBurst    = 30
	JoinPerMin   = 60
	maxJoinAddrs = 10_000 // addresses remembered; the quietest are forgotten beyond it
)

const (
	msgRate        = "too many join attempts from this address; wait a moment and try again"
	msgOrigin      = "this request did not come from the exam's page"
	msgContentType = "malformed request: want Content-Type: application/json"
)

// hsts is the Strict-Transport-Security of a server answering over TLS.
const hsts = "max-age=31536000"

// rateLimiter is a token bucket per client address.
type rateLimiter struct {
	burst float64
	rate  float64 // tokens per second
	mu    sync.Mutex
	addrs map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newRateLimiter(burst, perMin int) *rateLimiter {
	return &rateLimiter{burst: float64(burst), rate: float64(perMin) / 60, addrs: map[string]*bucket{}}
}

// allow takes one token for addr at now, or says how long until one is there.
func (l *rateLimiter) allow(addr string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.addrs[addr]
	if !ok {
		if len(l.addrs) >= maxJoinAddrs {
			l.forgetFullLocked(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.addrs[addr] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// forgetFullLocked drops the addresses whose buckets have refilled (they behave like new ones),
// and if none has, every one: the map stays bounded whatever the addresses.
func (l *rateLimiter) forgetFullLocked(now time.Time) {
	for a, b := range l.addrs {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.addrs, a)
		}
	}
	if len(l.addrs) >= maxJoinAddrs {
		clear(l.addrs)
	}
}

func clientAddr(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}

// sameOrigin reports whether a request's Origin, when it has one, is the server's own: the
// host it was asked at, or the public URL's. Browsers send Origin with every POST; a request
// without one is not from a browser's page, and the Content-Type rule still holds for it.
func (s *Server) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	if s.cfg.PublicURL != "" {
		if p, err := url.Parse(s.cfg.PublicURL); err == nil && strings.EqualFold(p.Host, u.Host) && p.Scheme == u.Scheme {
			return true
		}
	}
	return false
}

// guardJoin checks POST /api/join before its body is read: the rate per client address, the
// Origin and the Content-Type (JSON only, which a cross-site form cannot send without CORS).
func (s *Server) guardJoin(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := s.rate.allow(clientAddr(r), s.cfg.Now()); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(max(1, int(wait.Round(time.Second)/time.Second))))
			s.log.Info("join refused", "reason", "rate limit", "addr", clientAddr(r))
			s.refuse(w, http.StatusTooManyRequests, msgRate)
			return
		}
		if !s.sameOrigin(r) {
			s.log.Info("join refused", "reason", "origin", "origin", r.Header.Get("Origin"))
			s.refuse(w, http.StatusForbidden, msgOrigin)
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			s.refuse(w, http.StatusUnsupportedMediaType, msgContentType)
			return
		}
		next(w, r)
	}
}

// secure sets HSTS on every answer over TLS.
func secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil {
			w.Header().Set("Strict-Transport-Security", hsts)
		}
		next.ServeHTTP(w, r)
	})
}
