package controlhttp

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/httpserve"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// EnvToken names the environment variable holding the bearer token bots must send.
const EnvToken = "EXAMTUI_CONTROLLER_TOKEN"

// DefaultMaxBody bounds a request's body: a turn's transcript and observation fit many times.
const DefaultMaxBody = 256 << 10

// Session bounds: an open session holds an exam (its controller, journal and timers, about half a
// megabyte), so the server holds a bounded number and closes the ones no bot has asked about for
// a while (an ended conversation whose bot never said DELETE). A closed session that had not
// ended stays resumable in the store.
const (
	DefaultMaxSessions = 200
	DefaultIdleExpiry  = 30 * time.Minute
)

// shutdownGrace is how long Serve lets requests in progress finish after its context ends.
const shutdownGrace = 10 * time.Second

var errBadRequest = errors.New("bad request")

// Server serves the runtime controller to Pipecat bots: one exam session per conversation,
// every one stored in the session store like any other exam.
type Server struct {
	base    app.Options
	store   *sessions.Store
	token   string
	maxBody int64
	maxOpen int
	idle    time.Duration
	now     func() time.Time
	log     *slog.Logger

	mu       sync.Mutex
	closed   bool
	opening  int // sessions being opened, counted against maxOpen
	sessions map[string]*session
}

// Option configures a Server.
type Option func(*Server) error

// WithToken makes every request carry "Authorization: Bearer token".
func WithToken(token string) Option {
	return func(s *Server) error { s.token = token; return nil }
}

// WithMaxBody bounds request bodies (default DefaultMaxBody).
func WithMaxBody(n int64) Option {
	return func(s *Server) error {
		if n <= 0 {
			return fmt.Errorf("controlhttp: max body %d must be positive", n)
		}
		s.maxBody = n
		return nil
	}
}

// WithMaxSessions caps the open sessions (default DefaultMaxSessions); past it a new session is
// refused 503 with Retry-After.
func WithMaxSessions(n int) Option {
	return func(s *Server) error {
		if n < 1 {
			return fmt.Errorf("controlhttp: max sessions %d must be at least 1", n)
		}
		s.maxOpen = n
		return nil
	}
}

// WithIdleExpiry closes a session no request has touched for d (default DefaultIdleExpiry).
func WithIdleExpiry(d time.Duration) Option {
	return func(s *Server) error {
		if d <= 0 {
			return fmt.Errorf("controlhttp: idle expiry %v must be positive", d)
		}
		s.idle = d
		return nil
	}
}

// withClock sets the server's clock (tests).
func withClock(now func() time.Time) Option {
	return func(s *Server) error { s.now = now; return nil }
}

// New builds a server whose sessions are wired from base exactly as app.Open wires any exam
// (spec, limits, controller options, failover), stored in store, with the relay as examiner.
// base.SpecPath is compiled once here so a bad spec fails at start, not at the first bot.
func New(store *sessions.Store, base app.Options, opts ...Option) (*Server, error) {
	if store == nil {
		return nil, ErrNoStore
	}
	if base.SpecPath == "" {
		return nil, ErrNoSpec
	}
	if _, _, err := app.LoadSpec(base.SpecPath); err != nil {
		return nil, fmt.Errorf("spec %s: %w", base.SpecPath, err)
	}
	s := &Server{base: base, store: store, maxBody: DefaultMaxBody, maxOpen: DefaultMaxSessions, idle: DefaultIdleExpiry,
		now: time.Now, log: base.Logger, sessions: map[string]*session{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// CheckListen refuses an address off loopback when there is no token: an exam's controller
// must not be open to the network.
func CheckListen(addr, token string) error {
	if token != "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: %w", addr, ErrNoToken)
}

// Handler is the API (package doc).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/sessions", s.handleCreate)
	mux.HandleFunc("POST /v1/sessions/{id}/turns", s.handleTurn)
	mux.HandleFunc("GET /v1/sessions/{id}", s.handleGet)
	mux.HandleFunc("DELETE /v1/sessions/{id}", s.handleDelete)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, "not_found", fmt.Errorf("no such endpoint: %s %s", r.Method, r.URL.Path))
	})
	return s.auth(mux)
}

// Serve answers on ln until ctx ends, then lets requests in progress finish and closes every
// session (Close).
func (s *Server) Serve(ctx context.Context, ln net.Listener, opts ...httpserve.Option) error {
	hs := &http.Server{Handler: s.Handler(), ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	opts = append([]httpserve.Option{httpserve.WithMaxBody(s.maxBody)}, opts...)
	go s.expireEvery(ctx, min(s.idle/4, time.Minute))
	return errors.Join(httpserve.Serve(ctx, hs, ln, shutdownGrace, opts...), s.Close())
}

// Exam is the running exam of session id: for an embedding program or a test driving a
// virtual clock (app.Options.ManualTicks) to tick it.
func (s *Server) Exam(id string) (*app.Exam, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[id]
	if !ok {
		return nil, false
	}
	return ss.exam, true
}

// Close closes every open session (one that did not end stays resumable) and refuses new ones.
// The store is the caller's.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	all := s.sessions
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	var errs []error
	for _, ss := range all {
		errs = append(errs, ss.exam.Close())
	}
	return errors.Join(errs...)
}

func (s *Server) auth(next http.Handler) http.Handler {
	want := []byte("Bearer " + s.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="examtui"`)
			s.fail(w, r, http.StatusUnauthorized, "unauthorized", errors.New("missing or wrong bearer token"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request) {
	var req CreateRequest
	if !s.decode(w, r, &req, true) {
		return
	}
	ss, err := s.open(r.Context(), req)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	u, err := ss.update(r.Context())
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	s.log.Info("pipecat session started", "session", u.SessionID, "node", u.Node, "examiner", ss.relay.Name())
	s.reply(w, http.StatusCreated, u)
}

// open wires and starts one exam, with the relay as its examiner.
func (s *Server) open(ctx context.Context, req CreateRequest) (*session, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if err := s.reserve(); err != nil {
		return nil, err
	}
	defer s.unreserve()
	rl, err := newRelay(req.Model)
	if err != nil {
		return nil, err
	}
	o := s.base
	o.SharedStore, o.ExaminerOverride, o.Candidate = s.store, rl, req.Candidate
	o.Input = runtime.SourceRoom
	o.ResumeID, o.NoStore = "", false
	x, err := app.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := x.Start(ctx); err != nil {
		return nil, errors.Join(err, x.Close())
	}
	ss := &session{exam: x, relay: rl}
	ss.touch(s.now())
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.Join(ErrClosed, x.Close())
	}
	s.sessions[x.SessionID] = ss
	return ss, nil
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) (*session, bool) {
	id := r.PathValue("id")
	s.mu.Lock()
	ss, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok {
		s.fail(w, r, http.StatusNotFound, "unknown_session", fmt.Errorf("%w %q", ErrUnknownSession, id))
		return nil, false
	}
	ss.touch(s.now())
	return ss, true
}

func (s *Server) handleTurn(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	var req TurnRequest
	if !s.decode(w, r, &req, false) {
		return
	}
	// The decision runs to its end even if the bot hangs up: a half-made decision helps no one.
	u, err := ss.turn(context.WithoutCancel(r.Context()), &req)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	s.reply(w, http.StatusOK, u)
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	u, err := ss.update(r.Context())
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	s.reply(w, http.StatusOK, u)
}

func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {
	ss, ok := s.session(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	delete(s.sessions, ss.exam.SessionID)
	s.mu.Unlock()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if err := ss.exam.Close(); err != nil {
		s.failErr(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// decode reads one JSON object of at most maxBody bytes, unknown fields refused. An empty
// body is allowed when optional.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any, optional bool) bool {
	body := http.MaxBytesReader(w, r.Body, s.maxBody)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if errors.Is(err, io.EOF) && optional {
		return true
	}
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if err == nil {
		return true
	}
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		s.fail(w, r, http.StatusRequestEntityTooLarge, "too_large", fmt.Errorf("body over %d bytes", mbe.Limit))
		return false
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("empty body")
	}
	s.fail(w, r, http.StatusBadRequest, "bad_request", fmt.Errorf("request body: %w", err))
	return false
}

// failErr maps an error to its status.
func (s *Server) failErr(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, errBadRequest), errors.Is(err, runtime.ErrInvalidTurn):
		s.fail(w, r, http.StatusBadRequest, "bad_request", err)
	case errors.Is(err, runtime.ErrExamOver):
		s.fail(w, r, http.StatusConflict, "exam_over", err)
	case errors.Is(err, runtime.ErrPaused):
		s.fail(w, r, http.StatusConflict, "paused", err)
	case errors.Is(err, ErrTooManySessions):
		w.Header().Set("Retry-After", "30")
		s.fail(w, r, http.StatusServiceUnavailable, "too_many_sessions", err)
	case errors.Is(err, ErrClosed), errors.Is(err, runtime.ErrClosed):
		s.fail(w, r, http.StatusServiceUnavailable, "closed", err)
	default:
		s.fail(w, r, http.StatusInternalServerError, "internal", err)
	}
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, code string, err error) {
	s.log.Warn("controller request refused", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	s.reply(w, status, errorBody{Error: err.Error(), Code: code})
}

func (s *Server) reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		s.log.Warn("controller reply not sent", "err", err)
	}
}
