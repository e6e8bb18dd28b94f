package lti_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/cmd/examtui/internal/lti/ltitest"
)

var dataAttr = regexp.MustCompile(`data-([a-z-]+)="([^"]*)"`)

// storageData returns the data- attributes of a platform-storage page.
func storageData(t *testing.T, page string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range dataAttr.FindAllStringSubmatch(page, -1) {
		out[m[1]] = ltitest.Unescape(m[2])
	}
	if out["mode"] == "" {
		t.Fatalf("not a platform-storage page:\n%s", page)
	}
	return out
}

// storageLogin starts a login with lti_storage_target from a browser that keeps no cookies
// (a third-party iframe with cookies blocked) and returns the login page's data.
func (f *fixture) storageLogin(t *testing.T, u ltitest.User, message string) (map[string]string, *http.Response) {
	t.Helper()
	resp, err := http.Get(f.plat.LoginInitiationWithStorage(u, message, ltitest.StorageFrame))
	if err != nil {
		t.Fatal(err)
	}
	page := body(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("login with storage: %d %s", resp.StatusCode, page)
	}
	return storageData(t, page), resp
}

// storageLaunch runs the login with storage, the platform's auth, and the launch POST without
// a cookie; it returns the launch's storage page data.
func (f *fixture) storageLaunch(t *testing.T, u ltitest.User, message string) map[string]string {
	t.Helper()
	d, _ := f.storageLogin(t, u, message)
	resp, err := http.Get(d["auth"])
	if err != nil {
		t.Fatal(err)
	}
	form := body(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("auth: %d %s (refused %v)", resp.StatusCode, form, f.plat.Refused())
	}
	vals := ltitest.FormValues(form)
	resp, err = http.PostForm(f.tool.LaunchURL(), vals)
	if err != nil {
		t.Fatal(err)
	}
	page := body(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("launch without cookie: %d %s", resp.StatusCode, page)
	}
	ld := storageData(t, page)
	ld["id_token"] = vals.Get("id_token")
	return ld
}

// postVerify posts the launch's second step as the tool's page would, with origin as Origin.
func (f *fixture) postVerify(t *testing.T, origin string, vals url.Values, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+lti.PathVerify, strings.NewReader(vals.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body(t, resp)
}

// TestStorageLoginPage: a login naming lti_storage_target answers the page that puts the
// state and nonce into the platform's storage (script from the tool, no inline script), for
// the platform's authorization origin, and still sets the state cookie.
func TestStorageLoginPage(t *testing.T) {
	f := newFixture(t)
	d, resp := f.storageLogin(t, ltitest.Learner, "link:rl-exam")
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "form-action 'self'") {
		t.Fatalf("CSP %q", csp)
	}
	auth, err := url.Parse(d["auth"])
	if err != nil {
		t.Fatal(err)
	}
	q := auth.Query()
	if d["mode"] != "login" || d["target"] != ltitest.StorageFrame || d["origin"] != f.plat.Server.URL ||
		q.Get("state") != d["state"] || q.Get("nonce") != d["nonce"] || d["state-key"] != "lti_state_"+d["state"] ||
		d["nonce-key"] != "lti_nonce_"+d["nonce"] || !strings.HasPrefix(d["auth"], f.plat.Server.URL+"/auth?") {
		t.Fatalf("login page data %v", d)
	}
	if len(resp.Cookies()) != 1 || resp.Cookies()[0].Value != d["state"] {
		t.Fatalf("the state cookie is kept too: %v", resp.Cookies())
	}
	js, err := http.Get(f.srv.URL + lti.PathStorageJS)
	if err != nil {
		t.Fatal(err)
	}
	if src := body(t, js); js.StatusCode != 200 || !strings.HasPrefix(js.Header.Get("Content-Type"), "text/javascript") ||
		!strings.Contains(src, "lti.put_data") || !strings.Contains(src, "ev.origin !== d.origin") {
		t.Fatalf("storage.js: %d %s", js.StatusCode, js.Header.Get("Content-Type"))
	}
	for _, bad := range []string{"a b", "<frame>", "x\"y", strings.Repeat("f", 101)} {
		u, _ := url.Parse(f.plat.LoginInitiationWithStorage(ltitest.Learner, "link:rl-exam", bad))
		resp, err := http.Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		if b := body(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(b, "lti_storage_target") {
			t.Fatalf("target %q: %d %s", bad, resp.StatusCode, b)
		}
	}
}

// TestStorageLaunch: without the cookie, a launch whose login used platform storage gets the
// page that reads the state back; its POST to PathVerify with what the storage held admits
// the learner, once.
func TestStorageLaunch(t *testing.T) {
	f := newFixture(t)
	d := f.storageLaunch(t, ltitest.Learner, "link:rl-exam")
	if d["mode"] != "launch" || d["target"] != ltitest.StorageFrame || d["origin"] != f.plat.Server.URL || d["state"] == "" || d["nonce"] == "" {
		t.Fatalf("launch page data %v", d)
	}
	vals := url.Values{"state": {d["state"]}, "id_token": {d["id_token"]}, "stored_state": {d["state"]}, "stored_nonce": {d["nonce"]}}
	if code, b := f.postVerify(t, f.srv.URL, vals, map[string]string{"Sec-Fetch-Site": "same-origin"}); code != 200 || b != "learner learner-7" {
		t.Fatalf("verify: %d %q", code, b)
	}
	if code, b := f.postVerify(t, f.srv.URL, vals, nil); code != http.StatusBadRequest || !strings.Contains(b, "unknown or expired login") {
		t.Fatalf("verify replayed: %d %q", code, b)
	}
	if len(f.rec.launches) != 1 {
		t.Fatalf("launches %v", f.rec.launches)
	}
	// An instructor's Deep Linking launch works the same way.
	d = f.storageLaunch(t, ltitest.Instructor, "deeplink")
	vals = url.Values{"state": {d["state"]}, "id_token": {d["id_token"]}, "stored_state": {d["state"]}, "stored_nonce": {d["nonce"]}}
	if code, b := f.postVerify(t, f.srv.URL, vals, nil); code != 200 || !strings.Contains(b, "Place an oral exam") {
		t.Fatalf("deep linking through storage: %d %q", code, b)
	}
}

// TestStorageRefusals: the second step refuses a state or nonce the storage did not hold, a
// POST that is not from the tool's own page, and a login that did not use the storage; the
// launcher never runs and the login is used up by a refused check.
func TestStorageRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(v url.Values, d map[string]string)
		origin func(f *fixture) string
		hdr    map[string]string
		code   int
		want   string
	}{
		{"storage holds another state", func(v url.Values, _ map[string]string) { v.Set("stored_state", "not-the-state") }, nil, nil,
			http.StatusBadRequest, "does not hold this login's state"},
		{"storage holds nothing", func(v url.Values, _ map[string]string) { v.Set("stored_state", "") }, nil, nil,
			http.StatusBadRequest, "does not hold this login's state"},
		{"storage holds another nonce", func(v url.Values, _ map[string]string) { v.Set("stored_nonce", "x") }, nil, nil,
			http.StatusBadRequest, "nonce"},
		{"no Origin", nil, func(*fixture) string { return "" }, nil, http.StatusForbidden, "tool's own page"},
		{"another site's page", nil, func(f *fixture) string { return f.plat.Server.URL }, nil, http.StatusForbidden, "tool's own page"},
		{"cross-site fetch", nil, nil, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden, "tool's own page"},
		{"unknown state", func(v url.Values, _ map[string]string) { v.Set("state", "forged"); v.Set("stored_state", "forged") }, nil, nil,
			http.StatusBadRequest, "unknown or expired"},
		{"a forged id_token", func(v url.Values, _ map[string]string) { v.Set("id_token", "x.y.z") }, nil, nil,
			http.StatusUnauthorized, "id_token refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			d := f.storageLaunch(t, ltitest.Learner, "link:rl-exam")
			vals := url.Values{"state": {d["state"]}, "id_token": {d["id_token"]}, "stored_state": {d["state"]}, "stored_nonce": {d["nonce"]}}
			if tc.edit != nil {
				tc.edit(vals, d)
			}
			origin := f.srv.URL
			if tc.origin != nil {
				origin = tc.origin(f)
			}
			code, b := f.postVerify(t, origin, vals, tc.hdr)
			if code != tc.code || !strings.Contains(b, tc.want) {
				t.Fatalf("%d %q, want %d naming %q", code, b, tc.code, tc.want)
			}
			if len(f.rec.launches) != 0 {
				t.Fatalf("the launcher ran: %v", f.rec.launches)
			}
		})
	}
	t.Run("login without storage", func(t *testing.T) {
		f := newFixture(t)
		state, nonce := f.loginState(t, ltitest.Learner)
		c, _ := f.plat.LaunchClaims(ltitest.Learner, "link:rl-exam", nonce)
		tok, _ := f.plat.Sign(c)
		vals := url.Values{"state": {state}, "id_token": {tok}, "stored_state": {state}, "stored_nonce": {nonce}}
		if code, b := f.postVerify(t, f.srv.URL, vals, nil); code != http.StatusBadRequest || !strings.Contains(b, "did not use the platform's storage") {
			t.Fatalf("%d %q", code, b)
		}
		// And the launch of such a login, without the cookie, is refused as before.
		resp, err := http.PostForm(f.tool.LaunchURL(), url.Values{"state": {state}, "id_token": {tok}})
		if err != nil {
			t.Fatal(err)
		}
		if b := body(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(b, "no state cookie") {
			t.Fatalf("%d %q", resp.StatusCode, b)
		}
	})
}
