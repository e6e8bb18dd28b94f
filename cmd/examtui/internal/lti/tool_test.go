package lti_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/cmd/examtui/internal/lti/ltitest"
)

// recorder is a Launcher that records what it was asked to do.
type recorder struct {
	mu       sync.Mutex
	launches []string
	last     *lti.Launch
}

func (r *recorder) note(kind string, l *lti.Launch, w http.ResponseWriter) {
	r.mu.Lock()
	r.launches = append(r.launches, kind+":"+l.Subject)
	r.last = l
	r.mu.Unlock()
	_, _ = io.WriteString(w, kind+" "+l.Subject)
}
func (r *recorder) Learner(w http.ResponseWriter, _ *http.Request, l *lti.Launch) {
	r.note("learner", l, w)
}
func (r *recorder) Instructor(w http.ResponseWriter, _ *http.Request, l *lti.Launch) {
	r.note("instructor", l, w)
}

type catalog []lti.CatalogExam

func (c catalog) Exams() ([]lti.CatalogExam, error) { return c, nil }

type fixture struct {
	plat   *ltitest.Platform
	tool   *lti.Tool
	srv    *httptest.Server
	rec    *recorder
	client *http.Client
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return startFixture(t, srv, mux, nil)
}

// startFixture runs a stand-in platform and the tool on srv (serving mux), edit changing the
// tool's config first.
func startFixture(t *testing.T, srv *httptest.Server, mux *http.ServeMux, edit func(*lti.Config)) *fixture {
	t.Helper()
	plat := ltitest.Start(t)
	keys, err := lti.OpenKeys(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := lti.NewRegistry([]lti.Platform{plat.Registration()})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{plat: plat, rec: &recorder{}, srv: srv}
	cfg := lti.Config{Platforms: reg, Keys: keys, BaseURL: f.srv.URL, Launcher: f.rec,
		Catalog: catalog{{ID: "hotel-breakfast", Title: "Hotel breakfast", ScoreMaximum: 9}}}
	if edit != nil {
		edit(&cfg)
	}
	f.tool, err = lti.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.tool.Register(mux)
	plat.ToolJWKS, plat.ToolLaunch, plat.ToolLogin = f.tool.JWKSURL(), f.tool.LaunchURL(), f.tool.LoginURL()
	plat.AddLink(ltitest.Link{ID: "rl-exam", Title: "Oral exam", Custom: map[string]string{"exam": "hotel-breakfast"}}, 9)
	plat.AddLink(ltitest.Link{ID: "rl-examiners", Title: "Examiners", Custom: map[string]string{"view": "examiner"}}, 0)
	jar, _ := cookiejar.New(nil)
	f.client = &http.Client{Jar: jar, Timeout: 10 * time.Second}
	return f
}

// submit posts the auto-submitting form of an HTML page, as the browser's onload does.
func (f *fixture) submit(t *testing.T, page string) *http.Response {
	t.Helper()
	return ltitest.SubmitForm(t, f.client, page)
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// launch runs the whole flow: login initiation → the platform's auth → the form post.
func (f *fixture) launch(t *testing.T, u ltitest.User, message string) (int, string) {
	t.Helper()
	resp, err := f.client.Get(f.plat.LoginInitiation(u, message))
	if err != nil {
		t.Fatal(err)
	}
	page := body(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("login → auth: %d %s (platform refused: %v)", resp.StatusCode, page, f.plat.Refused())
	}
	resp = f.submit(t, page)
	return resp.StatusCode, body(t, resp)
}

func TestLaunchRoles(t *testing.T) {
	f := newFixture(t)
	if code, b := f.launch(t, ltitest.Learner, "link:rl-exam"); code != 200 || b != "learner learner-7" {
		t.Fatalf("learner launch: %d %q", code, b)
	}
	l := f.rec.last
	if l.ResourceLink.ID != "rl-exam" || l.Custom["exam"] != "hotel-breakfast" || l.Name != "Ada Lovelace" ||
		l.AGS == nil || !strings.HasSuffix(l.AGS.LineItem, "/lineitems/li-rl-exam") || l.NRPS == nil || l.Context.ID != "course-101" {
		t.Fatalf("launch %+v", l)
	}
	if code, b := f.launch(t, ltitest.Instructor, "link:rl-exam"); code != 200 || b != "instructor teacher-1" {
		t.Fatalf("instructor launch: %d %q", code, b)
	}
	// A learner opening the examiners' placement is refused.
	code, b := f.launch(t, ltitest.Learner, "link:rl-examiners")
	if code != http.StatusForbidden || !strings.Contains(b, "examiners' page") {
		t.Fatalf("learner on the examiners' link: %d %q", code, b)
	}
}

func TestDeepLinking(t *testing.T) {
	f := newFixture(t)
	code, page := f.launch(t, ltitest.Instructor, "deeplink")
	if code != 200 || !strings.Contains(page, "Hotel breakfast <small>(hotel-breakfast, 9 marks)") {
		t.Fatalf("picker: %d %s", code, page)
	}
	// The picker's form: its dl token and the chosen exam.
	tok := regexp.MustCompile(`name="dl" value="([^"]+)"`).FindStringSubmatch(page)
	choice := url.Values{"dl": {tok[1]}, "exam": {"hotel-breakfast"}}
	// A choice another site posts is refused and leaves the picker open.
	for _, origin := range []string{"", "https://elsewhere.example"} {
		if resp := ltitest.PostFrom(t, f.client, f.srv.URL+lti.PathPick, origin, choice); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a choice posted from %q: %d %s", origin, resp.StatusCode, body(t, resp))
		}
	}
	if n := len(f.plat.DeepLinked()); n != 0 {
		t.Fatalf("a refused choice placed %d exam(s)", n)
	}
	resp := ltitest.PostFrom(t, f.client, f.srv.URL+lti.PathPick, f.srv.URL, choice)
	ret := body(t, resp)
	resp = f.submit(t, ret) // to the platform's deep link return URL
	if b := body(t, resp); resp.StatusCode != 200 || b != "placed" {
		t.Fatalf("return: %d %s (refused: %v)", resp.StatusCode, b, f.plat.Refused())
	}
	items := f.plat.DeepLinked()
	if len(items) != 1 || items[0]["type"] != "ltiResourceLink" || items[0]["url"] != f.tool.LaunchURL() {
		t.Fatalf("items %v", items)
	}
	li := items[0]["lineItem"].(map[string]any)
	if li["scoreMaximum"] != float64(9) || items[0]["custom"].(map[string]any)["exam"] != "hotel-breakfast" {
		t.Fatalf("line item %v", items[0])
	}
	// The picker's token is single-use.
	resp = ltitest.PostFrom(t, f.client, f.srv.URL+lti.PathPick, f.srv.URL, choice)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("picker token reused: %d", resp.StatusCode)
	}
	// A learner cannot deep link.
	if code, b := f.launch(t, ltitest.Learner, "deeplink"); code != http.StatusForbidden {
		t.Fatalf("learner deep link: %d %s", code, b)
	}
}

// loginState starts a login and returns the state and nonce the tool asked the platform for,
// stopping before the platform answers.
func (f *fixture) loginState(t *testing.T, u ltitest.User) (state, nonce string) {
	t.Helper()
	c := *f.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(f.plat.LoginInitiation(u, "link:rl-exam"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("login: %d %v", resp.StatusCode, err)
	}
	return loc.Query().Get("state"), loc.Query().Get("nonce")
}

func (f *fixture) postLaunch(t *testing.T, state, idToken string) (int, string) {
	t.Helper()
	resp, err := f.client.PostForm(f.tool.LaunchURL(), url.Values{"state": {state}, "id_token": {idToken}})
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body(t, resp)
}

// TestLaunchRefusals: every forged or wrong launch is refused with its reason and the
// launcher is never called.
func TestLaunchRefusals(t *testing.T) {
	claimsFor := func(f *fixture, nonce string, edit func(jwt.MapClaims)) jwt.MapClaims {
		c, err := f.plat.LaunchClaims(ltitest.Learner, "link:rl-exam", nonce)
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(c)
		}
		return c
	}
	sign := func(f *fixture, c jwt.MapClaims) string {
		s, err := f.plat.Sign(c)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		token func(f *fixture, nonce string) string
		want  string
	}{
		{"wrong audience", func(f *fixture, n string) string {
			return sign(f, claimsFor(f, n, func(c jwt.MapClaims) { c["aud"] = "another-tool"; delete(c, "azp") }))
		}, "audience"},
		{"expired", func(f *fixture, n string) string {
			return sign(f, claimsFor(f, n, func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() }))
		}, "expired"},
		{"issued in the future", func(f *fixture, n string) string {
			return sign(f, claimsFor(f, n, func(c jwt.MapClaims) { c["iat"] = time.Now().Add(time.Hour).Unix() }))
		}, "used before issued"},
		{"unknown key id", func(f *fixture, n string) string { return f.plat.SignUnknownKid(claimsFor(f, n, nil)) }, "unknown key id"},
		{"alg none", func(f *fixture, n string) string { return f.plat.SignNone(claimsFor(f, n, nil)) }, "signing method none is invalid"},
		{"HS256 keyed with the public key", func(f *fixture, n string) string {
			return f.plat.SignHS256WithPublicKey(claimsFor(f, n, nil))
		}, "signing method HS256 is invalid"},
		{"unknown deployment", func(f *fixture, n string) string {
			return sign(f, claimsFor(f, n, func(c jwt.MapClaims) { c["https://purl.imsglobal.org/spec/lti/claim/deployment_id"] = "dep-9" }))
		}, "unknown deployment"},
		{"wrong version", func(f *fixture, n string) string {
			return sign(f, claimsFor(f, n, func(c jwt.MapClaims) { c["https://purl.imsglobal.org/spec/lti/claim/version"] = "1.1" }))
		}, "LTI version"},
		{"another nonce", func(f *fixture, n string) string { return sign(f, claimsFor(f, "not-"+n, nil)) }, "nonce"},
		{"wrong issuer", func(f *fixture, n string) string {
			return sign(f, claimsFor(f, n, func(c jwt.MapClaims) { c["iss"] = "https://evil.example" }))
		}, "issuer"},
		{"azp of another client", func(f *fixture, n string) string {
			return sign(f, claimsFor(f, n, func(c jwt.MapClaims) { c["azp"] = "other" }))
		}, "azp"},
		{"unknown message type", func(f *fixture, n string) string {
			return sign(f, claimsFor(f, n, func(c jwt.MapClaims) {
				c["https://purl.imsglobal.org/spec/lti/claim/message_type"] = "LtiSubmissionReviewRequest"
			}))
		}, "message type"},
		{"no sub", func(f *fixture, n string) string {
			return sign(f, claimsFor(f, n, func(c jwt.MapClaims) { delete(c, "sub") }))
		}, "anonymous"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			state, nonce := f.loginState(t, ltitest.Learner)
			code, b := f.postLaunch(t, state, tc.token(f, nonce))
			if code == http.StatusOK || !strings.Contains(b, tc.want) {
				t.Fatalf("%d %q, want a refusal naming %q", code, b, tc.want)
			}
			if len(f.rec.launches) != 0 {
				t.Fatalf("the launcher ran: %v", f.rec.launches)
			}
		})
	}
}

// TestLaunchReplayAndState: a launch replayed (same token, or the same state again) and a
// launch from a browser that did not start the login are refused.
func TestLaunchReplayAndState(t *testing.T) {
	f := newFixture(t)
	state, nonce := f.loginState(t, ltitest.Learner)
	c, _ := f.plat.LaunchClaims(ltitest.Learner, "link:rl-exam", nonce)
	tok, _ := f.plat.Sign(c)
	if code, b := f.postLaunch(t, state, tok); code != 200 {
		t.Fatalf("first launch: %d %s", code, b)
	}
	if code, b := f.postLaunch(t, state, tok); code == 200 || !strings.Contains(b, "state") {
		t.Fatalf("replayed launch: %d %s", code, b)
	}
	// A second login, and the first token's nonce replayed into it.
	state2, _ := f.loginState(t, ltitest.Learner)
	if code, b := f.postLaunch(t, state2, tok); code == 200 || !strings.Contains(b, "nonce") {
		t.Fatalf("replayed nonce: %d %s", code, b)
	}
	// Another browser (no state cookie).
	state3, nonce3 := f.loginState(t, ltitest.Learner)
	c3, _ := f.plat.LaunchClaims(ltitest.Learner, "link:rl-exam", nonce3)
	tok3, _ := f.plat.Sign(c3)
	other := &http.Client{Timeout: 10 * time.Second}
	resp, err := other.PostForm(f.tool.LaunchURL(), url.Values{"state": {state3}, "id_token": {tok3}})
	if err != nil {
		t.Fatal(err)
	}
	if b := body(t, resp); resp.StatusCode == 200 || !strings.Contains(b, "did not start the login") {
		t.Fatalf("launch from another browser: %d %s", resp.StatusCode, b)
	}
	if got := len(f.rec.launches); got != 1 {
		t.Fatalf("%d launches reached the launcher, want 1", got)
	}
}

func TestLoginRefusals(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name string
		q    url.Values
		want string
	}{
		{"unknown issuer", url.Values{"iss": {"https://evil"}, "login_hint": {"x"}, "target_link_uri": {f.tool.LaunchURL()}}, "not registered"},
		{"unknown client", url.Values{"iss": {f.plat.Issuer}, "client_id": {"nope"}, "login_hint": {"x"}, "target_link_uri": {f.tool.LaunchURL()}}, "not registered"},
		{"unknown deployment", url.Values{"iss": {f.plat.Issuer}, "lti_deployment_id": {"dep-9"}, "login_hint": {"x"}, "target_link_uri": {f.tool.LaunchURL()}}, "unknown deployment"},
		{"target elsewhere", url.Values{"iss": {f.plat.Issuer}, "login_hint": {"x"}, "target_link_uri": {"https://evil.example/launch"}}, "not this tool"},
		{"no login hint", url.Values{"iss": {f.plat.Issuer}, "target_link_uri": {f.tool.LaunchURL()}}, "login_hint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := f.client.PostForm(f.tool.LoginURL(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if b := body(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(b, tc.want) {
				t.Fatalf("%d %q, want 400 naming %q", resp.StatusCode, b, tc.want)
			}
		})
	}
}

// TestServices: the tool's access tokens (private_key_jwt, verified by the platform against
// the tool's JWKS), a score on a line item, and the roster over several pages.
func TestServices(t *testing.T) {
	f := newFixture(t)
	keys, err := lti.OpenKeys(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A key the tool does not publish is refused by the platform.
	stray := lti.NewServices(keys, nil, nil)
	if err := stray.PostScore(t.Context(), f.plat.Registration(), f.plat.LineItemURL("li-rl-exam"), lti.Score{}); !errors.Is(err, lti.ErrService) {
		t.Fatalf("unpublished key: %v", err)
	}
	svc := lti.NewServices(f.tool.Keys(), nil, nil)
	given, max := 7.0, 9.0
	sc := lti.Score{UserID: ltitest.Learner.Sub, ScoreGiven: &given, ScoreMaximum: &max, ActivityProgress: lti.ActivityCompleted,
		GradingProgress: lti.GradingFully, Timestamp: time.Now().UTC().Format(time.RFC3339)}
	if err := svc.PostScore(t.Context(), f.plat.Registration(), f.plat.LineItemURL("li-rl-exam"), sc); err != nil {
		t.Fatalf("score: %v (platform refused: %v)", err, f.plat.Refused())
	}
	if got := f.plat.Scores(); len(got) != 1 || *got[0].Score.ScoreGiven != 7 || got[0].Score.GradingProgress != "FullyGraded" {
		t.Fatalf("scores %+v", got)
	}
	f.plat.AddUser(ltitest.User{Sub: "learner-8", Name: "Alan Turing", Roles: []string{lti.RoleLearner}})
	members, err := svc.Members(t.Context(), f.plat.Registration(), f.plat.Server.URL+"/memberships")
	if err != nil || len(members) != 3 {
		t.Fatalf("members %+v %v", members, err)
	}
}
