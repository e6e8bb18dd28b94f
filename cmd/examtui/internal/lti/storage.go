package lti

import (
	"crypto/subtle"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// LTI's platform storage (1EdTech "LTI Client Side postMessages", "postMessage Storage" and
// "OIDC Login with LTI Client Side postMessages"): where the browser will not keep the tool's
// state cookie — the tool in an iframe of the LMS, third-party cookies blocked — the platform
// names a frame of its own page (lti_storage_target) that keeps values for the tool. At login
// the tool's page puts the state and nonce there (lti.put_data) before going on to the
// platform; at launch the tool's page gets them back (lti.get_data) and posts them to
// PathVerify, which checks them against the login as the cookie would have been.
//
// Both pages run one static script (PathStorageJS) under a CSP without inline script; every
// message goes to the platform's authorization origin only, and only answers from that origin
// are read. PathVerify accepts only a same-origin POST (the tool's own page), so a page of
// another site cannot post a forged "the storage said so".

// Paths of the platform-storage pages' script and of the launch's second step.
const (
	PathStorageJS = "/lti/storage.js"
	PathVerify    = "/lti/verify"
)

// Storage keys the tool's script uses, by the value they keep (the 1EdTech library's names).
const (
	storageStatePrefix = "lti_state_"
	storageNoncePrefix = "lti_nonce_"
)

//go:embed storage.js
var storageJS []byte

// storageTargetRE is what a frame name given as lti_storage_target may be: "_parent" or a
// plain name (the script looks it up among the platform window's frames).
var storageTargetRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)

func validStorageTarget(s string) bool { return storageTargetRE.MatchString(s) }

// origin is u's scheme://host[:port].
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// storagePageData is what the storage script needs, carried in data- attributes.
type storagePageData struct {
	Mode    string // "login" (put, then go to Auth) or "launch" (get, then post to PathVerify)
	Target  string // lti_storage_target
	Origin  string // the platform's storage origin (its authorization URL's)
	State   string
	Nonce   string
	Auth    string // login: the authentication request to go on to
	IDToken string // launch: the platform's id_token, posted on with what the storage holds
}

var storagePage = template.Must(template.New("storage").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Signing in to the oral exam</title><script src="` + PathStorageJS + `" defer></script></head>
<body><main><p id="lti-status" role="status">Signing in through the learning platform…</p>
<div id="lti-storage" hidden data-mode="{{.Mode}}" data-target="{{.Target}}" data-origin="{{.Origin}}" data-state="{{.State}}" data-nonce="{{.Nonce}}" data-state-key="` + storageStatePrefix + `{{.State}}" data-nonce-key="` + storageNoncePrefix + `{{.Nonce}}"{{if .Auth}} data-auth="{{.Auth}}"{{end}}></div>
{{if eq .Mode "launch"}}<form id="lti-verify" method="post" action="` + PathVerify + `"><input type="hidden" name="state" value="{{.State}}"><input type="hidden" name="id_token" value="{{.IDToken}}"><input type="hidden" name="stored_state" value=""><input type="hidden" name="stored_nonce" value=""></form>{{end}}
<noscript><p>Signing in from inside the learning platform needs JavaScript here: open the exam in a new window instead.</p></noscript>
</main></body></html>`))

// storageCSP allows the page its script, a form posted to the tool only, nothing else. The
// login page leaves by navigating (not by a form), to the platform's authorization URL.
const storageCSP = "default-src 'none'; script-src 'self'; form-action 'self'; base-uri 'none'"

func (t *Tool) storagePage(w http.ResponseWriter, d storagePageData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", storageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	// same-origin: the verify POST carries the tool's Origin; nothing leaks to other sites.
	h.Set("Referrer-Policy", "same-origin")
	_ = storagePage.Execute(w, d)
}

func (t *Tool) storageScript(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(storageJS)
}

// sameOrigin reports whether r was sent by a page of the tool itself (SameOrigin).
func (t *Tool) sameOrigin(r *http.Request) bool { return SameOrigin(r, t.origin) }

// SameOrigin reports whether r was sent by a page of origin (the tool's own, scheme://host[:port]):
// its Origin is origin (browsers send it on every POST from a page whose referrer policy lets
// it), and Sec-Fetch-Site, when sent, says same-origin. Every form the tool's pages post is
// checked with it.
func SameOrigin(r *http.Request, origin string) bool {
	o := r.Header.Get("Origin")
	if o == "" || !strings.EqualFold(o, strings.TrimRight(origin, "/")) {
		return false
	}
	s := r.Header.Get("Sec-Fetch-Site")
	return s == "" || s == "same-origin"
}

// verify is the launch's second step when the state came from the platform's storage: the
// tool's own page posts the id_token with what the storage holds under the login's keys.
// The login is used up here as at a cookie launch; the id_token is then verified exactly as
// there (nonce single-use, signature, claims).
func (t *Tool) verify(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 256<<10)
	if !t.sameOrigin(r) {
		t.refuse(w, http.StatusForbidden, fmt.Errorf("%w: the platform-storage check must come from the tool's own page (Origin %q)", ErrState, r.Header.Get("Origin")))
		return
	}
	if err := r.ParseForm(); err != nil {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: %w", ErrMessage, err))
		return
	}
	state := r.PostForm.Get("state")
	p, ok := t.states.take(state)
	if state == "" || !ok {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: unknown or expired login; launch again from the course", ErrState))
		return
	}
	if p.storageTarget == "" {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: this login did not use the platform's storage", ErrState))
		return
	}
	if !equal(r.PostForm.Get("stored_state"), state) {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: the platform's storage does not hold this login's state (another browser, or a forged launch); launch again from the course", ErrState))
		return
	}
	if !equal(r.PostForm.Get("stored_nonce"), p.nonce) {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: the platform's storage does not hold this login's nonce; launch again from the course", ErrNonce))
		return
	}
	t.admit(w, r, p, r.PostForm.Get("id_token"), "platform storage")
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
