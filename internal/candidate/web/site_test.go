package web_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/examtui/examtui/audio/livekit"
	"github.com/examtui/examtui/internal/candidate/web"
	"github.com/examtui/examtui/internal/lktest"
)

// site stands in for candidate.Server (branch cand-serve) until it is merged: the page from
// web.FS() and /api/join as the join contract says (one seat per code, bound by a cookie).
type site struct {
	URL string
	lk  *lktest.Server

	mu    sync.Mutex
	codes map[string]*seat
}

type seat struct {
	identity string
	cookie   string // "" until first used
}

func startSite(t *testing.T, lk *lktest.Server) *site {
	t.Helper()
	if !web.Built() {
		t.Fatal("the candidate page is not built: run make web (make test does)")
	}
	s := &site{lk: lk, codes: map[string]*seat{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /join/{code}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; connect-src 'self' "+lk.URL+" "+strings.Replace(lk.URL, "ws://", "http://", 1)+"; media-src 'self' blob:")
		http.ServeFileFS(w, r, web.FS(), "index.html")
	})
	mux.Handle("GET /assets/", http.FileServerFS(web.FS()))
	mux.HandleFunc("POST /api/join", s.join)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

// code makes a one-time join code for identity.
func (s *site) code(identity string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	c := hex.EncodeToString(b)
	s.mu.Lock()
	s.codes[c] = &seat{identity: identity}
	s.mu.Unlock()
	return c
}

func (s *site) link(code string) string { return s.URL + "/join/" + code }

func (s *site) join(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Code string `json:"code"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, 400, map[string]string{"error": "malformed request"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.codes[body.Code]
	if !ok {
		writeJSON(w, 404, map[string]string{"error": "this join link is not known; check it, or ask your examiner for a new one"})
		return
	}
	c, _ := r.Cookie("examtui_seat")
	switch {
	case st.cookie == "":
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		st.cookie = hex.EncodeToString(b)
		http.SetCookie(w, &http.Cookie{Name: "examtui_seat", Value: st.cookie, Path: "/api", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	case c == nil || c.Value != st.cookie:
		writeJSON(w, 409, map[string]string{"error": "this join link was already used on another device; ask your examiner for a new one"})
		return
	}
	tok, err := livekit.NewToken(s.lk.APIKey, s.lk.Secret, s.lk.Room, st.identity, livekit.RoleCandidate)
	if err != nil {
		writeJSON(w, 500, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, 200, map[string]string{"url": s.lk.URL, "token": tok, "room": s.lk.Room, "identity": st.identity, "name": st.identity})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
