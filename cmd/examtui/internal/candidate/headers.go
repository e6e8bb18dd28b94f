package candidate

import (
	"net/http"
	"net/url"
	"strings"
)

// notBuilt is the answer for the page in a binary built without it (`go build` without `make web`).
const notBuilt = "the candidate page is not built into this binary: run make build"

// contentSecurityPolicy allows the page its own files and, for connections, the LiveKit server
// the browser joins: its WebSocket URL and the same host over HTTP(S), which livekit-client
// asks when a connection fails (/rtc/validate).
// frameAncestors is the CSP directive of who may show the page in a frame: nobody, or the
// origins given (a learning platform's course page, for a launch from it).
func frameAncestors(origins []string) string {
	if len(origins) == 0 {
		return "frame-ancestors 'none'"
	}
	return "frame-ancestors " + strings.Join(origins, " ")
}

// withFrameAncestors is csp with its frame-ancestors directive allowing origins instead.
func withFrameAncestors(csp string, origins []string) string {
	return strings.Replace(csp, frameAncestors(nil), frameAncestors(origins), 1)
}

func contentSecurityPolicy(lk *url.URL) string {
	ws, web := lk.Scheme, lk.Scheme
	switch lk.Scheme {
	case "ws", "http":
		ws, web = "ws", "http"
	case "wss", "https":
		ws, web = "wss", "https"
	}
	connect := strings.Join([]string{"'self'", ws + "://" + lk.Host, web + "://" + lk.Host}, " ")
	return strings.Join([]string{
		"default-src 'none'",
		"script-src 'self'",
		"style-src 'self'",
		"img-src 'self' data:",
		"font-src 'self'",
		"media-src 'self' blob: mediastream:",
		"worker-src 'self' blob:",
		"connect-src " + connect,
		"base-uri 'none'",
		"form-action 'none'",
		frameAncestors(nil),
	}, "; ")
}

// setPageHeaders sets what every page response carries: not stored (a join link's page must
// not outlive its code in a shared browser; serveFile lets content-hashed assets be cached), no
// referrer (the code is in the URL's path), the CSP, no MIME sniffing.
func (s *Server) setPageHeaders(h http.Header) {
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", s.csp)
	h.Set("X-Content-Type-Options", "nosniff")
}
