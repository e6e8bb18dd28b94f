package candidate

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestJoinLinkRevoked: a new link for the same candidate and room revokes the earlier one and
// the seat it gave: the first browser's cookie stops getting tokens (410), the new link works.
// Before, the first device's seat kept minting tokens for the seat's 12 hours.
func TestJoinLinkRevoked(t *testing.T) {
	f := newFixture(t, t.TempDir(), builtPage(t))
	thief := browser(t)
	old := f.code(t, Invite{Room: "exam-1", Identity: "ada"})
	if a := postJoin(t, thief, f.srv.URL, codeBody(old)); a.status != http.StatusOK {
		t.Fatalf("first use: %d %v", a.status, a.body)
	}
	f.advance(time.Minute)
	fresh := f.code(t, Invite{Room: "exam-1", Identity: "ada"})
	if a := postJoin(t, thief, f.srv.URL, codeBody(old)); a.status != http.StatusGone || !strings.Contains(a.body["error"], "replaced") {
		t.Errorf("the old link's seat after a new link: %d %v, want 410 replaced", a.status, a.body)
	}
	if a := postJoin(t, browser(t), f.srv.URL, codeBody(fresh)); a.status != http.StatusOK {
		t.Errorf("the new link: %d %v", a.status, a.body)
	}
}

// TestJoinGuards: /api/join refuses a cross-site Origin and a body that is not JSON, and limits
// each client address (5,000 guesses in a second were all answered before); /assets/ lists
// nothing; answers over TLS carry HSTS.
func TestJoinGuards(t *testing.T) {
	f := newFixture(t, t.TempDir(), builtPage(t))
	code := f.code(t, Invite{Room: "exam-1", Identity: "ada"})
	post := func(origin, ctype, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/api/join", strings.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for _, tc := range []struct {
		name, origin, ctype string
		want                int
	}{
		{"another site", "https://evil.example", "application/json", http.StatusForbidden},
		{"a null origin", "null", "application/json", http.StatusForbidden},
		{"a form", f.srv.URL, "application/x-www-form-urlencoded", http.StatusUnsupportedMediaType},
		{"text/plain (no preflight)", "", "text/plain", http.StatusUnsupportedMediaType},
		{"no type", "", "", http.StatusUnsupportedMediaType},
		{"the page itself", f.srv.URL, "application/json; charset=utf-8", http.StatusOK},
	} {
		if resp := post(tc.origin, tc.ctype, codeBody(code)); resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}

	limited := 0
	var retry string
	for range 200 {
		resp := post("", "application/json", codeBody(strings.Repeat("A", 22)))
		if resp.StatusCode == http.StatusTooManyRequests {
			limited++
			retry = resp.Header.Get("Retry-After")
		}
	}
	if limited < 200-JoinBurst || retry == "" {
		t.Errorf("200 guesses at once: %d refused 429 (Retry-After %q), want all past the burst of %d", limited, retry, JoinBurst)
	}

	for _, path := range []string{"/assets/", "/assets"} {
		resp, err := http.Get(f.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "app.js") {
			t.Errorf("GET %s lists the files: %d %q", path, resp.StatusCode, body)
		}
	}

	tlsSrv := httptest.NewUnstartedServer(f.srv.Config.Handler)
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	c := tlsSrv.Client()
	c.Transport.(*http.Transport).TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the test's own server
	for _, path := range []string{"/healthz", "/join/" + code, "/assets/app.js"} {
		resp, err := c.Get(tlsSrv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if !strings.HasPrefix(resp.Header.Get("Strict-Transport-Security"), "max-age=") {
			t.Errorf("GET %s over TLS: no HSTS (%v)", path, resp.Header)
		}
	}
	resp, _ := http.Get(f.srv.URL + "/healthz")
	resp.Body.Close()
	if resp.Header.Get("Strict-Transport-Security") != "" {
		t.Errorf("HSTS over plain HTTP")
	}
}
