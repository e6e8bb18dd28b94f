package candidate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"

	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/transport/livekit"
)

const (
	testKey    = "devkey"
	testSecret = "0123456789abcdef0123456789abcdef"
	testLK     = "ws://127.0.0.1:7880"
)

// builtPage writes a page as `make web` leaves it (index.html and an asset) into a directory.
func builtPage(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"index.html":    "<!doctype html><title>join</title><script type=module src=/assets/app.js></script>",
		"assets/app.js": "console.log('page')",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type fixture struct {
	st   *sessions.Store
	srv  *httptest.Server
	now  time.Time
	mu   sync.Mutex
	skew time.Duration // added to now by the server's clock
}

func (f *fixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now.Add(f.skew)
}

func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	f.skew += d
	f.mu.Unlock()
}

// newFixture serves a candidate server over real HTTP on a real store (target: a data directory
// or a postgres:// URL).
func newFixture(t testing.TB, target string, page string, tweak ...func(*Config)) *fixture {
	t.Helper()
	st, err := sessions.OpenURL(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	f := &fixture{st: st, now: time.Now()}
	cfg := Config{Store: st, LiveKitURL: testLK, APIKey: testKey, APISecret: testSecret, Page: os.DirFS(page), Now: f.clock}
	for _, tw := range tweak {
		tw(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.srv = httptest.NewServer(s.Handler())
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) code(t testing.TB, inv Invite) string {
	t.Helper()
	code, err := NewCode(context.Background(), f.st, inv, f.clock())
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// browser is one browser: its own cookie jar.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar}
}

type answer struct {
	status int
	body   map[string]string
	resp   *http.Response
}

func postJoin(t *testing.T, c *http.Client, base, body string) answer {
	t.Helper()
	a, err := tryJoin(c, base, body)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// tryJoin is postJoin for goroutines other than the test's: it returns what went wrong.
func tryJoin(c *http.Client, base, body string) (answer, error) {
	resp, err := c.Post(base+"/api/join", "application/json", strings.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	a := answer{status: resp.StatusCode, resp: resp}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		return a, fmt.Errorf("POST /api/join %s: %d, not JSON: %q", body, resp.StatusCode, raw)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		return a, fmt.Errorf("POST /api/join: Cache-Control %q", cc)
	}
	return a, nil
}

func codeBody(code string) string { return `{"code":"` + code + `"}` }

// TestJoinOnceThenReload: the first browser to use a code gets a candidate token for the
// invited room and identity (least grants, short TTL) and a seat cookie; the same browser gets a
// fresh token again (reload); any other browser, with no cookie or with its own, is refused 409.
func TestJoinOnceThenReload(t *testing.T) {
	f := newFixture(t, t.TempDir(), builtPage(t))
	code := f.code(t, Invite{Room: "exam-42", Identity: "ada", Name: "Ada Lovelace"})
	ada := browser(t)

	first := postJoin(t, ada, f.srv.URL, codeBody(code))
	if first.status != http.StatusOK {
		t.Fatalf("first join: %d %v", first.status, first.body)
	}
	want := map[string]string{"url": testLK, "room": "exam-42", "identity": "ada", "name": "Ada Lovelace"}
	for k, v := range want {
		if first.body[k] != v {
			t.Errorf("first join %s = %q, want %q", k, first.body[k], v)
		}
	}
	checkCandidateToken(t, first.body["token"], "exam-42", "ada", DefaultTokenTTL)
	var seat *http.Cookie
	for _, c := range first.resp.Cookies() {
		if c.Name == SeatCookie {
			seat = c
		}
	}
	switch {
	case seat == nil:
		t.Fatalf("no %s cookie: %v", SeatCookie, first.resp.Header.Values("Set-Cookie"))
	case !seat.HttpOnly || seat.SameSite != http.SameSiteStrictMode || seat.Path != "/api" || seat.Secure:
		t.Errorf("seat cookie %+v: want HttpOnly, SameSite=Strict, Path=/api, not Secure over plain HTTP", seat)
	}

	again := postJoin(t, ada, f.srv.URL, codeBody(code))
	if again.status != http.StatusOK || again.body["room"] != "exam-42" {
		t.Fatalf("reload with the seat cookie: %d %v", again.status, again.body)
	}
	checkCandidateToken(t, again.body["token"], "exam-42", "ada", DefaultTokenTTL)

	other := browser(t)
	for name, c := range map[string]*http.Client{"no cookie": http.DefaultClient, "another browser's seat": other} {
		if name == "another browser's seat" {
			// the other browser holds a seat of its own, from a code it was given
			if a := postJoin(t, other, f.srv.URL, codeBody(f.code(t, Invite{Room: "exam-43", Identity: "bob"}))); a.status != http.StatusOK {
				t.Fatalf("bob's own code: %d %v", a.status, a.body)
			}
		}
		a := postJoin(t, c, f.srv.URL, codeBody(code))
		if a.status != http.StatusConflict || a.body["error"] != msgUsed {
			t.Errorf("%s: %d %v, want 409 %q", name, a.status, a.body, msgUsed)
		}
	}
	codes, err := f.st.JoinCodes(context.Background(), "exam-42")
	if err != nil || len(codes) != 1 || codes[0].Redeemed.IsZero() || codes[0].CodeHash == code || strings.Contains(codes[0].SeatHash, seat.Value) {
		t.Fatalf("stored: %+v %v (want one redeemed code, hashes only)", codes, err)
	}
}

func checkCandidateToken(t *testing.T, jwt, room, identity string, ttl time.Duration) {
	t.Helper()
	v, err := auth.ParseAPIToken(jwt)
	if err != nil {
		t.Fatalf("token: %v", err)
	}
	std, claims, err := v.Verify(testSecret)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	g := claims.Video
	if claims.Identity != identity || g == nil || g.Room != room || !g.RoomJoin || !g.GetCanPublish() || !g.GetCanSubscribe() ||
		claims.Attributes[livekit.RoleAttribute] != livekit.RoleCandidate.String() || g.RoomAdmin || g.RoomCreate {
		t.Fatalf("claims %+v grant %+v: want a candidate of %q in %q", claims, g, identity, room)
	}
	if src := g.CanPublishSources; len(src) != 1 || src[0] != "microphone" {
		t.Errorf("publish sources %v, want the microphone only", src)
	}
	if got := std.ExpiresAt.Sub(std.NotBefore.Time); got != ttl {
		t.Errorf("token TTL %v, want %v", got, ttl)
	}
}

// TestJoinRefusals: what each bad join gets, and that none of them spends the code.
func TestJoinRefusals(t *testing.T) {
	f := newFixture(t, t.TempDir(), builtPage(t), func(c *Config) { c.SeatTTL = time.Hour })
	stale := f.code(t, Invite{Room: "r", Identity: "late", TTL: time.Minute})
	seated := f.code(t, Invite{Room: "r", Identity: "early", TTL: time.Minute})
	early := browser(t)
	if a := postJoin(t, early, f.srv.URL, codeBody(seated)); a.status != http.StatusOK {
		t.Fatalf("early join: %d %v", a.status, a.body)
	}
	f.advance(2 * time.Minute)
	if a := postJoin(t, early, f.srv.URL, codeBody(seated)); a.status != http.StatusOK {
		t.Fatalf("a seated browser after the link expired, within the seat TTL: %d %v", a.status, a.body)
	}
	for _, tc := range []struct {
		name   string
		client *http.Client
		body   string
		status int
		msg    string
	}{
		{"unknown code", http.DefaultClient, codeBody(newSecret()), http.StatusNotFound, msgNotFound},
		{"not a code", http.DefaultClient, codeBody("hello"), http.StatusNotFound, msgNotFound},
		{"expired before use", http.DefaultClient, codeBody(stale), http.StatusGone, msgExpired},
		{"not JSON", http.DefaultClient, `code=abc`, http.StatusBadRequest, msgMalformed},
		{"no code", http.DefaultClient, `{}`, http.StatusBadRequest, msgMalformed},
		{"too big", http.DefaultClient, codeBody(strings.Repeat("a", 4096)), http.StatusBadRequest, msgMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := postJoin(t, tc.client, f.srv.URL, tc.body)
			if a.status != tc.status || a.body["error"] != tc.msg {
				t.Fatalf("%d %v, want %d %q", a.status, a.body, tc.status, tc.msg)
			}
		})
	}
	f.advance(time.Hour)
	if a := postJoin(t, early, f.srv.URL, codeBody(seated)); a.status != http.StatusGone {
		t.Fatalf("a seated browser after its seat TTL: %d %v, want 410", a.status, a.body)
	}
}

// TestPage: GET /join/{code} serves the page with its headers and spends nothing; assets come
// from the page's files; /healthz answers.
func TestPage(t *testing.T) {
	f := newFixture(t, t.TempDir(), builtPage(t))
	code := f.code(t, Invite{Room: "r", Identity: "ada"})
	for _, path := range []string{"/join/" + code, "/join/" + code, "/assets/app.js"} {
		resp, err := http.Get(f.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(body) == 0 {
			t.Fatalf("GET %s: %d %q", path, resp.StatusCode, body)
		}
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		if h.Get("Cache-Control") != "no-store" || h.Get("Referrer-Policy") != "no-referrer" || h.Get("X-Content-Type-Options") != "nosniff" ||
			!strings.Contains(csp, "connect-src 'self' ws://127.0.0.1:7880 http://127.0.0.1:7880") || !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("GET %s headers: %v", path, h)
		}
	}
	if a := postJoin(t, browser(t), f.srv.URL, codeBody(code)); a.status != http.StatusOK {
		t.Fatalf("join after the page was loaded twice: %d %v (GET must not spend the code)", a.status, a.body)
	}
	resp, err := http.Get(f.srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok" {
		t.Fatalf("healthz: %d %q", resp.StatusCode, body)
	}
}

// TestPageNotBuilt: a binary built without `make web` says so with 503 instead of a blank page.
func TestPageNotBuilt(t *testing.T) {
	f := newFixture(t, t.TempDir(), t.TempDir())
	resp, err := http.Get(f.srv.URL + "/join/" + newSecret())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Equal(bytes.TrimSpace(body), []byte(notBuilt)) {
		t.Fatalf("%d %q, want 503 %q", resp.StatusCode, body, notBuilt)
	}
}

func TestNewRefuses(t *testing.T) {
	st, err := sessions.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	good := Config{Store: st, LiveKitURL: testLK, APIKey: testKey, APISecret: testSecret}
	for _, tc := range []struct {
		name  string
		tweak func(*Config)
	}{
		{"no store", func(c *Config) { c.Store = nil }},
		{"no secret", func(c *Config) { c.APISecret = "" }},
		{"no LiveKit URL", func(c *Config) { c.LiveKitURL = "" }},
		{"LiveKit URL without a host", func(c *Config) { c.LiveKitURL = "ws://" }},
		{"ftp LiveKit URL", func(c *Config) { c.LiveKitURL = "ftp://x" }},
		{"negative TTL", func(c *Config) { c.TokenTTL = -time.Second }},
	} {
		c := good
		tc.tweak(&c)
		if _, err := New(c); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	if _, err := New(good); err != nil {
		t.Fatal(err)
	}
}

// TestSecureCookieBehindProxy: a server whose public URL is HTTPS (TLS ends at a proxy) marks
// the seat cookie Secure although its own requests are plain HTTP.
func TestSecureCookieBehindProxy(t *testing.T) {
	f := newFixture(t, t.TempDir(), builtPage(t), func(c *Config) { c.SecureCookies = true })
	a := postJoin(t, browser(t), f.srv.URL, codeBody(f.code(t, Invite{Room: "r", Identity: "ada"})))
	if a.status != http.StatusOK {
		t.Fatalf("%d %v", a.status, a.body)
	}
	for _, c := range a.resp.Cookies() {
		if c.Name == SeatCookie && !c.Secure {
			t.Fatalf("seat cookie %+v: want Secure", c)
		}
	}
}
