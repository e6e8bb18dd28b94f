package candidate

import (
	"context"
	"crypto/tls"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/candidate/web"
	"github.com/examtui/examtui/internal/httpserve"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec/lang"
)

// Defaults of Config.
const (
	// DefaultTokenTTL is how long a minted candidate token admits its holder to the room. Short:
	// the page asks for a fresh one on every (re)load, and LiveKit refreshes the token of a
	// connected participant itself.
	DefaultTokenTTL = 10 * time.Minute
	// DefaultSeatTTL is how long after the first use the same browser can come back with its
	// seat cookie (reloads, network drops) — longer than any exam.
	DefaultSeatTTL = 12 * time.Hour
)

// shutdownGrace is how long Serve waits for requests in flight after its context ends.
const shutdownGrace = 5 * time.Second

// Config is what a Server needs. Store and the LiveKit settings are required.
type Config struct {
	Store *sessions.Store
	// LiveKitURL is the LiveKit server the candidate's browser connects to (ws:// or wss://, as
	// the browser reaches it); APIKey and APISecret sign the candidate tokens.
	LiveKitURL string
	APIKey     string
	APISecret  string
	// TokenTTL and SeatTTL: 0 gives DefaultTokenTTL and DefaultSeatTTL.
	TokenTTL time.Duration
	SeatTTL  time.Duration
	// PublicURL is the server's address as browsers reach it behind a reverse proxy (--public-url):
	// an Origin of that host is the page's own.
	PublicURL string
	// SecureCookies marks the seat cookie Secure even on plain HTTP requests: for a server
	// behind a reverse proxy that terminates TLS. Requests over TLS always get Secure.
	SecureCookies bool
	// Page is the candidate page (index.html at its root, assets/); nil: the page built into
	// this binary (web.FS).
	Page fs.FS
	// Logger gets one line per join (the code as a short digest only); nil discards.
	Logger *slog.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Mount adds routes of other services the server carries (the LTI tool); nil: none.
	Mount func(mux *http.ServeMux)
	// Notice is the recording notice shown before the microphone opens ("": the page language's
	// pack's noticeText, which in English is sessions.DefaultNotice).
	Notice string
	// Languages are the language packs the page is shown in (nil: the shipped ones); Language is
	// the default language, for a link that names none ("": en).
	Languages *lang.Registry
	Language  string
}

// Server serves the candidate page and the join API (docs/candidate.md).
type Server struct {
	cfg     Config
	log     *slog.Logger
	csp     string
	handler http.Handler
	rate    *rateLimiter
	lang    *lang.Pack // the default language's pack
	pages   *pages
}

// New validates cfg and returns its server.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("%w: no session store", ErrInvalidConfig)
	}
	if cfg.APIKey == "" || cfg.APISecret == "" {
		return nil, fmt.Errorf("%w: no LiveKit API key/secret to sign candidate tokens", ErrInvalidConfig)
	}
	lk, err := url.Parse(cfg.LiveKitURL)
	if err != nil || (lk.Scheme != "ws" && lk.Scheme != "wss" && lk.Scheme != "http" && lk.Scheme != "https") || lk.Host == "" {
		return nil, fmt.Errorf("%w: LiveKit URL %q: want ws(s)://HOST[:PORT] as the candidate's browser reaches it", ErrInvalidConfig, cfg.LiveKitURL)
	}
	if cfg.TokenTTL < 0 || cfg.SeatTTL < 0 {
		return nil, fmt.Errorf("%w: negative TTL", ErrInvalidConfig)
	}
	if cfg.TokenTTL == 0 {
		cfg.TokenTTL = DefaultTokenTTL
	}
	if cfg.SeatTTL == 0 {
		cfg.SeatTTL = DefaultSeatTTL
	}
	if cfg.Page == nil {
		cfg.Page = web.FS()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Languages == nil {
		cfg.Languages = lang.Builtin()
	}
	if cfg.Language == "" {
		cfg.Language = "en"
	}
	def, err := cfg.Languages.Lookup(cfg.Language)
	if err != nil {
		return nil, fmt.Errorf("%w: the page's default language: %w", ErrInvalidConfig, err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, log: cfg.Logger, csp: contentSecurityPolicy(lk), rate: newRateLimiter(JoinBurst, JoinPerMin),
		lang: def, pages: newPages(cfg.Page, strings.TrimSpace(cfg.Notice))}
	s.handler = s.routes()
	return s, nil
}

// Handler is the server's HTTP handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.handler }

// Serve answers on ln until ctx ends, then lets requests in flight finish (shutdownGrace). A
// httpserve.WithTLS option makes it HTTPS; the server's bounds are httpserve's. The store is the
// caller's.
func (s *Server) Serve(ctx context.Context, ln net.Listener, opts ...httpserve.Option) error {
	hs := &http.Server{Handler: s.handler, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	go s.purgeEvery(ctx, purgeInterval)
	return httpserve.Serve(ctx, hs, ln, shutdownGrace, opts...)
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /join/{code}", s.page)
	mux.HandleFunc("GET /assets/{name}", s.asset)
	mux.HandleFunc("GET /favicon.ico", s.favicon)
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) { // a miss: not stored either
		s.setPageHeaders(w.Header())
		http.NotFound(w, r)
	})
	mux.HandleFunc("POST /api/join", s.guardJoin(s.join))
	if s.cfg.Mount != nil {
		s.cfg.Mount(mux)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte("ok"))
	})
	return secure(mux)
}

// purgeInterval is how often a running server deletes the join codes that can admit nobody.
const purgeInterval = time.Hour

// purgeEvery deletes dead join codes now and every d until ctx ends.
func (s *Server) purgeEvery(ctx context.Context, d time.Duration) {
	s.purge(ctx)
	app.Every(ctx, d, func() bool { s.purge(ctx); return true })
}

// purge deletes the join codes that can admit nobody any more.
func (s *Server) purge(ctx context.Context) {
	n, err := s.cfg.Store.PurgeJoinCodes(ctx, s.cfg.Now(), s.cfg.SeatTTL)
	switch {
	case err != nil && ctx.Err() == nil:
		s.log.Warn("purge join codes", "err", err)
	case n > 0:
		s.log.Info("join codes purged", "count", n)
	}
}

// TLSConfig is the candidate server's TLS set-up for certs: TLS 1.2 at least, and HTTP/2
// offered first, so that a browser fetches the page's files over one connection (over
// HTTP/1.1 each file fetched in parallel costs a connection's handshakes, three round trips on
// a slow link). Serve's http.Server speaks HTTP/2 on any TLS listener that negotiates it.
func TLSConfig(certs ...tls.Certificate) *tls.Config {
	return &tls.Config{Certificates: certs, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
}
