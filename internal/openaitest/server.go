package openaitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// Server is a running OpenAI-compatible test server on loopback.
type Server struct {
	cfg config
	ts  *httptest.Server

	done      chan struct{} // closed by Close: unblocks hanging handlers
	closeOnce sync.Once

	mu       sync.Mutex
	chatQ    []Behaviour
	sttQ     []Behaviour
	speechQ  []Behaviour
	requests []Request
	ids      int
}

// New starts a server and, when tb is not nil, closes it in tb.Cleanup. An invalid option fails
// tb (or panics when tb is nil, as httptest.NewServer does on a listen failure).
func New(tb testing.TB, opts ...Option) *Server {
	if tb != nil {
		tb.Helper()
	}
	s, err := Start(opts...)
	if err != nil {
		if tb == nil {
			panic(err)
		}
		tb.Fatalf("openaitest.New: %v", err)
	}
	if tb != nil {
		tb.Cleanup(s.Close)
	}
	return s
}

// Start starts a server outside a test (benchmarks, demos). Call Close.
func Start(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	s := &Server{cfg: cfg, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	if cfg.noAudio {
		mux.HandleFunc("/v1/audio/", http.NotFound)
	} else {
		mux.HandleFunc("POST /v1/audio/transcriptions", s.handleTranscription)
		mux.HandleFunc("POST /v1/audio/speech", s.handleSpeech)
	}
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown_url",
			fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path), 0)
	})
	s.ts = httptest.NewServer(s.guard(mux))
	return s, nil
}

// URL is the base URL for an OpenAI client, ending in /v1.
func (s *Server) URL() string { return s.ts.URL + "/v1" }

// Client is an HTTP client for the server (plain loopback, no proxy).
func (s *Server) Client() *http.Client { return s.ts.Client() }

// Close unblocks hanging handlers, closes client connections and stops the server. It is
// idempotent.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
}

// Enqueue appends chat completion behaviours, consumed one per request in order.
func (s *Server) Enqueue(bs ...Behaviour) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatQ = append(s.chatQ, bs...)
}

// EnqueueTranscription appends transcription behaviours.
func (s *Server) EnqueueTranscription(bs ...Behaviour) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sttQ = append(s.sttQ, bs...)
}

// EnqueueSpeech appends speech behaviours; with the queue empty, speech is synthesised.
func (s *Server) EnqueueSpeech(bs ...Behaviour) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.speechQ = append(s.speechQ, bs...)
}

// Pending is the number of behaviours still queued across all endpoints.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.chatQ) + len(s.sttQ) + len(s.speechQ)
}

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ChatRequests returns the decoded chat completion requests so far.
func (s *Server) ChatRequests() []*ChatRequest {
	var out []*ChatRequest
	for _, r := range s.Requests() {
		if r.Chat != nil {
			out = append(out, r.Chat)
		}
	}
	return out
}

type ctxKey struct{}

// guard records every request, then checks the bearer key, before any handler runs.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			badRequest(w, "could not read body: "+err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h := r.Header.Clone()
		h.Del("Authorization")
		s.mu.Lock()
		s.requests = append(s.requests, Request{
			Time: time.Now(), Method: r.Method, Path: r.URL.Path, Header: h, Body: body,
		})
		idx := len(s.requests) - 1
		s.mu.Unlock()
		s.cfg.logger.Debug("openaitest request", "method", r.Method, "path", r.URL.Path, "bytes", len(body))

		if s.cfg.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.apiKey {
			writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
				"Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.", 0)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, idx)))
	})
}

// update edits the record of the request being served.
func (s *Server) update(r *http.Request, f func(*Request)) {
	idx, ok := r.Context().Value(ctxKey{}).(int)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.requests[idx])
}

// next pops the head of q, or returns def() when q is empty.
func (s *Server) next(q *[]Behaviour, def func() Behaviour) Behaviour {
	s.mu.Lock()
	if len(*q) > 0 {
		b := (*q)[0]
		*q = (*q)[1:]
		s.mu.Unlock()
		return b
	}
	s.mu.Unlock()
	return def()
}

func (s *Server) newID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s%012d", prefix, s.ids)
}

// wait sleeps d, returning false if the client went away or the server closed first.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}

// hang blocks until the client gives up or the server closes.
func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// disconnect drops the connection, flushing whatever was already written.
func disconnect(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Without hijacking, aborting the handler is the only way to break the response.
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// common plays the behaviours every endpoint shares; it reports whether it answered.
func (s *Server) common(w http.ResponseWriter, r *http.Request, b Behaviour) bool {
	switch b.Kind {
	case KindHang:
		s.hang(r)
		return true
	case KindDisconnect:
		if s.wait(r, b.Delay) {
			disconnect(w)
		}
		return true
	case KindStatus:
		if s.wait(r, b.Delay) {
			writeError(w, b.StatusCode, b.ErrType, b.ErrCode, b.ErrMessage, b.RetryAfter)
		}
		return true
	}
	return false
}

// ready plays what every endpoint does before its own answer: the shared behaviours (common),
// a behaviour of another endpoint's kinds (misuse), then the behaviour's delay. It reports
// whether the endpoint answers now; false means the response is done or the client is gone.
func (s *Server) ready(w http.ResponseWriter, r *http.Request, b Behaviour, endpoint string, kinds ...Kind) bool {
	if s.common(w, r, b) {
		return false
	}
	if !slices.Contains(kinds, b.Kind) {
		misuse(w, endpoint, b)
		return false
	}
	return s.wait(r, b.Delay)
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, m := range s.cfg.models {
		list.Data = append(list.Data, model{ID: m, Object: "model", Created: 1700000000, OwnedBy: "openaitest"})
	}
	writeJSON(w, http.StatusOK, list)
}

// misuse answers a behaviour that makes no sense for the endpoint, loudly.
func misuse(w http.ResponseWriter, endpoint string, b Behaviour) {
	writeError(w, http.StatusInternalServerError, "server_error", "openaitest_misuse",
		fmt.Sprintf("openaitest: behaviour %s cannot answer %s", b.Kind, endpoint), 0)
}
