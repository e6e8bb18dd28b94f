package lti

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// stateCookie names the cookie that binds a login's state to the browser that started it;
// one per login, so two tabs launching at once do not overwrite each other.
func stateCookie(state string) string {
	h := sha256.Sum256([]byte(state))
	return "examtui_lti_" + hex.EncodeToString(h[:8])
}

// login is the OIDC third-party login initiation (LTI 1.3 §5.1.1): the platform names itself
// and the user; the tool answers with the authentication request, sent back through the
// browser to the platform's authorization endpoint.
func (t *Tool) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: %w", ErrMessage, err))
		return
	}
	iss, hint := r.Form.Get("iss"), r.Form.Get("login_hint")
	target := r.Form.Get("target_link_uri")
	if iss == "" || hint == "" || target == "" {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: a login needs iss, login_hint and target_link_uri", ErrMessage))
		return
	}
	p, err := t.cfg.Platforms.Find(iss, r.Form.Get("client_id"))
	if err != nil {
		t.refuse(w, http.StatusBadRequest, err)
		return
	}
	if dep := r.Form.Get("lti_deployment_id"); dep != "" && !p.AllowsDeployment(dep) {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: %q of %s", ErrUnknownDeploy, dep, iss))
		return
	}
	if !strings.HasPrefix(target, t.cfg.BaseURL+"/") && target != t.cfg.BaseURL {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: target_link_uri %q is not this tool (%s)", ErrMessage, target, t.cfg.BaseURL))
		return
	}
	storage := r.Form.Get("lti_storage_target")
	if storage != "" && !validStorageTarget(storage) {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: lti_storage_target %q is not a frame name", ErrMessage, storage))
		return
	}
	auth, err := url.Parse(p.AuthURL)
	if err != nil {
		t.refuse(w, http.StatusInternalServerError, fmt.Errorf("%w: platform %s: authUrl: %w", ErrInvalidConfig, p.Issuer, err))
		return
	}
	state, nonce := randomToken(), randomToken()
	if !t.states.add(state, pending{nonce: nonce, issuer: p.Issuer, clientID: p.ClientID, storageTarget: storage,
		authOrigin: origin(auth)}) {
		w.Header().Set("Retry-After", "10")
		t.refuse(w, http.StatusServiceUnavailable, fmt.Errorf("%w: too many logins in progress", ErrState))
		return
	}
	c := &http.Cookie{Name: stateCookie(state), Value: state, Path: "/lti/", MaxAge: int(stateTTL.Seconds()), HttpOnly: true,
		SameSite: http.SameSiteLaxMode}
	if t.cfg.SecureCookies || r.TLS != nil {
		// The launch is a cross-site form POST from the platform: only SameSite=None cookies
		// travel with it, and those must be Secure.
		c.Secure, c.SameSite = true, http.SameSiteNoneMode
	}
	http.SetCookie(w, c)
	q := url.Values{
		"scope":         {"openid"},
		"response_type": {"id_token"},
		"response_mode": {"form_post"},
		"prompt":        {"none"},
		"client_id":     {p.ClientID},
		"redirect_uri":  {t.LaunchURL()},
		"login_hint":    {hint},
		"state":         {state},
		"nonce":         {nonce},
	}
	if mh := r.Form.Get("lti_message_hint"); mh != "" {
		q.Set("lti_message_hint", mh)
	}
	aq := auth.Query()
	for k, v := range q {
		aq[k] = v
	}
	auth.RawQuery = aq.Encode()
	if storage != "" {
		// The cookie may not come back (a third-party iframe): the state and nonce go into
		// the platform's storage too, from a page, before the page goes on to the platform.
		t.storagePage(w, storagePageData{Mode: "login", Target: storage, Origin: origin(auth), State: state, Nonce: nonce,
			Auth: auth.String()})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, auth.String(), http.StatusFound)
}
