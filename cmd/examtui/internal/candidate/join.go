package candidate

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"

	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/transport/livekit"
)

// SeatCookie binds the browser that first used a code to it: the same browser may use the code
// again (reload, reconnect), no other may.
const SeatCookie = "examtui_seat"

// maxJoinBody bounds POST /api/join: a code is 22 characters.
const maxJoinBody = 1 << 10

// The refusals the page shows as they are.
const (
	msgUsed      = "this join link was already used on another device; ask your examiner for a new one"
	msgNotFound  = "this join link is not valid; check that you opened the whole link, or ask your examiner for a new one"
	msgExpired   = "this join link has expired; ask your examiner for a new one"
	msgRevoked   = "this join link was replaced by a newer one or withdrawn; use the newest link your examiner gave you"
	msgMalformed = `malformed request: want a JSON body {"code":"…"}`
	msgInternal  = "the exam server could not let you in; ask your examiner"
)

// joinRequest is POST /api/join's body.
type joinRequest struct {
	Code string `json:"code"`
	// Notice: the candidate acknowledged the recording notice the page showed before the
	// microphone opened (kept on the code, then on the session).
	Notice bool `json:"notice"`
}

// JoinResponse is what POST /api/join answers on success: where and as whom the page joins.
type JoinResponse struct {
	URL      string `json:"url"`
	Token    string `json:"token"`
	Room     string `json:"room"`
	Identity string `json:"identity"`
	Name     string `json:"name"`
}

// page serves index.html for any code, in the link's language, never stored: GET never consumes
// a code, and the page finds out what its code is worth when the candidate presses Join.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	if _, err := fs.Stat(s.cfg.Page, "index.html"); err != nil {
		s.setPageHeaders(w.Header())
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, notBuilt+"\n")
		return
	}
	s.servePage(w, r)
}

// join redeems a code for this browser and answers with a fresh candidate token.
func (s *Server) join(w http.ResponseWriter, r *http.Request) {
	var req joinRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJoinBody))
	if err := dec.Decode(&req); err != nil || req.Code == "" {
		s.refuse(w, http.StatusBadRequest, msgMalformed)
		return
	}
	if !wellFormed(req.Code) {
		s.log.Info("join refused", "code", digest(req.Code), "reason", "not a join code")
		s.refuse(w, http.StatusNotFound, msgNotFound)
		return
	}
	seat := ""
	if c, err := r.Cookie(SeatCookie); err == nil && wellFormed(c.Value) {
		seat = c.Value
	} else {
		seat = newSecret()
	}
	now := s.cfg.Now()
	jc, err := s.cfg.Store.RedeemJoinCode(r.Context(), hashSecret(req.Code), hashSecret(seat), now, s.cfg.SeatTTL)
	if err != nil {
		status, msg := http.StatusInternalServerError, msgInternal
		switch {
		case errors.Is(err, sessions.ErrJoinCodeNotFound):
			status, msg = http.StatusNotFound, msgNotFound
		case errors.Is(err, sessions.ErrJoinCodeExpired):
			status, msg = http.StatusGone, msgExpired
		case errors.Is(err, sessions.ErrJoinCodeRevoked):
			status, msg = http.StatusGone, msgRevoked
		case errors.Is(err, sessions.ErrJoinCodeUsed):
			status, msg = http.StatusConflict, msgUsed
		}
		s.log.Info("join refused", "code", digest(req.Code), "status", status, "reason", err.Error())
		if status == http.StatusInternalServerError {
			s.log.Error("join failed", "code", digest(req.Code), "err", err)
		}
		s.refuse(w, status, msg)
		return
	}
	if req.Notice {
		if err := s.cfg.Store.AcknowledgeJoinNotice(r.Context(), jc.CodeHash, now); err != nil {
			s.log.Warn("join: the notice acknowledgement was not recorded", "code", digest(req.Code), "err", err)
		}
	}
	name := jc.DisplayName
	if name == "" {
		name = jc.Identity
	}
	token, err := livekit.NewToken(s.cfg.APIKey, s.cfg.APISecret, jc.Room, jc.Identity, livekit.RoleCandidate,
		livekit.WithTTL(s.cfg.TokenTTL), livekit.WithDisplayName(name))
	if err != nil {
		s.log.Error("join failed: mint token", "code", digest(req.Code), "room", jc.Room, "err", err)
		s.refuse(w, http.StatusInternalServerError, msgInternal)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: SeatCookie, Value: seat, Path: "/api",
		MaxAge:   int(s.cfg.SeatTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || s.cfg.SecureCookies,
	})
	s.log.Info("join admitted", "code", digest(req.Code), "room", jc.Room, "identity", jc.Identity,
		"first", jc.Redeemed.Equal(now))
	s.writeJSON(w, http.StatusOK, JoinResponse{URL: s.cfg.LiveKitURL, Token: token, Room: jc.Room, Identity: jc.Identity, Name: name})
}

// refusalReasons name each refusal for the page, which says it in the page's language (its
// pack's page string "refused" + the reason with a capital: refusedUsed); error stays the
// English text for other clients.
var refusalReasons = map[string]string{
	msgUsed: "used", msgNotFound: "notFound", msgExpired: "expired", msgRevoked: "revoked",
	msgMalformed: "malformed", msgInternal: "internal",
}

func (s *Server) refuse(w http.ResponseWriter, status int, msg string) {
	s.writeJSON(w, status, map[string]string{"error": msg, "reason": refusalReasons[msg]})
}

func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
