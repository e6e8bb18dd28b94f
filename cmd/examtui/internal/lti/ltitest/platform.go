// Package ltitest is a stand-in LTI 1.3 Advantage platform on loopback, written from the IMS
// specifications (LTI Core 1.3, Security Framework 1.0, Deep Linking 2.0, AGS 2.0, NRPS 2.0),
// for examtui's tests: its keys and JWKS, the OIDC authorization endpoint answering with a
// form_post id_token, the token endpoint that verifies the tool's signed client assertion
// against the tool's JWKS, line items and scores, course memberships, and the Deep Linking
// return that verifies the tool's signed response. No LMS can be installed here; a second,
// independent tool (ltijs) is run against it too, so it is not only examtui's own reading.
package ltitest

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/examtui/examtui/cmd/examtui/internal/lti"
)

// User is a person of the stand-in's course.
type User struct {
	Sub   string
	Name  string
	Email string
	Roles []string
}

// Learner and Instructor are the course's two people unless a test adds more.
var (
	Learner    = User{Sub: "learner-7", Name: "Ada Lovelace", Email: "ada@example.edu", Roles: []string{lti.RoleLearner}}
	Instructor = User{Sub: "teacher-1", Name: "Grace Hopper", Email: "grace@example.edu", Roles: []string{lti.RoleInstructor}}
)

// Link is a resource link of the course (a placed exam), with its line item.
type Link struct {
	ID       string
	Title    string
	Custom   map[string]string
	LineItem string // its line item's id (empty: none)
}

// ScoreRecord is a score the platform received.
type ScoreRecord struct {
	LineItem string
	Score    lti.Score
}

// Platform is the stand-in. Its fields are fixed at Start; its records are read with the
// methods.
type Platform struct {
	Server       *httptest.Server
	Issuer       string
	ClientID     string
	DeploymentID string
	ContextID    string
	// ToolJWKS, ToolLaunch and ToolLogin are the tool's endpoints, set by the test once the
	// tool's address is known.
	ToolJWKS, ToolLaunch, ToolLogin string

	key *rsa.PrivateKey
	kid string
	t   testing.TB

	mu         sync.Mutex
	users      map[string]User
	links      map[string]Link
	lineItems  map[string]lti.LineItem
	scores     []ScoreRecord
	tokens     map[string][]string // access token → scopes
	deepLinked []map[string]any    // content items received
	jtis       map[string]bool
	storageLog []StorageRecord
	// Refuse counts the requests the platform refused, by endpoint, with why.
	refused []string
}

// Start runs a platform on loopback until the test ends.
func Start(t testing.TB) *Platform {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &Platform{ClientID: "examtui-client-1", DeploymentID: "dep-1", ContextID: "course-101", key: k, kid: "platform-key-1", t: t,
		users: map[string]User{Learner.Sub: Learner, Instructor.Sub: Instructor}, links: map[string]Link{},
		lineItems: map[string]lti.LineItem{}, tokens: map[string][]string{}, jtis: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /auth", p.auth)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("GET /lineitems", p.listLineItems)
	mux.HandleFunc("POST /lineitems/{id}/scores", p.postScore)
	mux.HandleFunc("GET /memberships", p.memberships)
	mux.HandleFunc("POST /deeplink/return", p.deepLinkReturn)
	mux.HandleFunc("GET /lms", p.lms)
	mux.HandleFunc("GET /lms/storage", p.storageFrame)
	mux.HandleFunc("POST /lms/storage/log", p.storageRecord)
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Server.Close)
	p.Issuer = p.Server.URL
	return p
}

// Registration is what examtui's config gets for this platform.
func (p *Platform) Registration() lti.Platform {
	return lti.Platform{Issuer: p.Issuer, ClientID: p.ClientID, DeploymentIDs: []string{p.DeploymentID},
		AuthURL: p.Server.URL + "/auth", TokenURL: p.Server.URL + "/token", JWKSURL: p.Server.URL + "/jwks"}
}

// AddLink places a resource link with a line item of scoreMaximum (0: no line item).
func (p *Platform) AddLink(l Link, scoreMaximum float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if scoreMaximum > 0 {
		if l.LineItem == "" {
			l.LineItem = "li-" + l.ID
		}
		p.lineItems[l.LineItem] = lti.LineItem{ScoreMaximum: scoreMaximum, Label: l.Title, ResourceID: l.ID}
	}
	p.links[l.ID] = l
}

// AddUser adds a person to the course.
func (p *Platform) AddUser(u User) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.users[u.Sub] = u
}

// Scores returns the scores received.
func (p *Platform) Scores() []ScoreRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.scores)
}

// DeepLinked returns the content items of the Deep Linking responses received.
func (p *Platform) DeepLinked() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.deepLinked)
}

// Refused returns why the platform refused requests.
func (p *Platform) Refused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.refused)
}

func (p *Platform) refuse(w http.ResponseWriter, status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.mu.Lock()
	p.refused = append(p.refused, msg)
	p.mu.Unlock()
	http.Error(w, msg, status)
}

// LineItemURL is the URL of line item id.
func (p *Platform) LineItemURL(id string) string { return p.Server.URL + "/lineitems/" + id }

func (p *Platform) jwks(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(lti.JWKS{Keys: []lti.JWK{lti.PublicJWK(p.kid, &p.key.PublicKey)}})
}

// LoginInitiation is the URL a platform sends the browser to for user launching message
// ("link:ID" for a resource link, "deeplink" for a Deep Linking request).
func (p *Platform) LoginInitiation(user User, message string) string {
	q := url.Values{"iss": {p.Issuer}, "login_hint": {user.Sub}, "target_link_uri": {p.ToolLaunch},
		"lti_message_hint": {message}, "client_id": {p.ClientID}, "lti_deployment_id": {p.DeploymentID}}
	return p.ToolLogin + "?" + q.Encode()
}

var formPost = template.Must(template.New("post").Parse(`<!doctype html><html><head><title>Launching</title></head>
<body onload="document.forms[0].submit()"><form method="post" action="{{.Action}}">
{{range $k, $v := .Fields}}<input type="hidden" name="{{$k}}" value="{{$v}}">{{end}}
<noscript><button type="submit">Continue</button></noscript></form></body></html>`))

// auth is the OIDC authorization endpoint: it checks the tool's authentication request and
// answers with an id_token posted to the redirect URI (form_post).
func (p *Platform) auth(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for k, want := range map[string]string{"scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none", "client_id": p.ClientID} {
		if q.Get(k) != want {
			p.refuse(w, http.StatusBadRequest, "auth: %s %q, want %q", k, q.Get(k), want)
			return
		}
	}
	if q.Get("redirect_uri") != p.ToolLaunch {
		p.refuse(w, http.StatusBadRequest, "auth: redirect_uri %q is not registered (%q)", q.Get("redirect_uri"), p.ToolLaunch)
		return
	}
	if q.Get("nonce") == "" || q.Get("state") == "" {
		p.refuse(w, http.StatusBadRequest, "auth: nonce and state are required")
		return
	}
	p.mu.Lock()
	u, ok := p.users[q.Get("login_hint")]
	p.mu.Unlock()
	if !ok {
		p.refuse(w, http.StatusBadRequest, "auth: unknown login_hint %q", q.Get("login_hint"))
		return
	}
	claims, err := p.LaunchClaims(u, q.Get("lti_message_hint"), q.Get("nonce"))
	if err != nil {
		p.refuse(w, http.StatusBadRequest, "auth: %v", err)
		return
	}
	tok, err := p.Sign(claims)
	if err != nil {
		p.refuse(w, http.StatusInternalServerError, "auth: %v", err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = formPost.Execute(w, map[string]any{"Action": template.URL(q.Get("redirect_uri")), "Fields": map[string]string{"id_token": tok, "state": q.Get("state")}})
}

// LaunchClaims are the id_token claims of user launching message with nonce.
func (p *Platform) LaunchClaims(u User, message, nonce string) (jwt.MapClaims, error) {
	now := time.Now()
	c := jwt.MapClaims{
		"iss": p.Issuer, "aud": p.ClientID, "azp": p.ClientID, "sub": u.Sub, "exp": now.Add(5 * time.Minute).Unix(),
		"iat": now.Unix(), "nonce": nonce, "name": u.Name, "email": u.Email,
		"https://purl.imsglobal.org/spec/lti/claim/version":         "1.3.0",
		"https://purl.imsglobal.org/spec/lti/claim/deployment_id":   p.DeploymentID,
		"https://purl.imsglobal.org/spec/lti/claim/roles":           u.Roles,
		"https://purl.imsglobal.org/spec/lti/claim/target_link_uri": p.ToolLaunch,
		"https://purl.imsglobal.org/spec/lti/claim/context":         map[string]any{"id": p.ContextID, "label": "ORAL101", "title": "Oral examinations 101"},
		"https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": map[string]any{
			"context_memberships_url": p.Server.URL + "/memberships", "service_versions": []string{"2.0"}},
	}
	switch {
	case message == "deeplink":
		c["https://purl.imsglobal.org/spec/lti/claim/message_type"] = "LtiDeepLinkingRequest"
		c["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = map[string]any{
			"deep_link_return_url": p.Server.URL + "/deeplink/return", "accept_types": []string{"ltiResourceLink"},
			"accept_presentation_document_targets": []string{"iframe", "window"}, "data": "dl-opaque-42"}
	case strings.HasPrefix(message, "link:"):
		p.mu.Lock()
		l, ok := p.links[strings.TrimPrefix(message, "link:")]
		p.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("unknown resource link %q", message)
		}
		c["https://purl.imsglobal.org/spec/lti/claim/message_type"] = "LtiResourceLinkRequest"
		c["https://purl.imsglobal.org/spec/lti/claim/resource_link"] = map[string]any{"id": l.ID, "title": l.Title}
		if len(l.Custom) > 0 {
			c["https://purl.imsglobal.org/spec/lti/claim/custom"] = l.Custom
		}
		ags := map[string]any{"scope": []string{lti.ScopeLineItem, lti.ScopeScore}, "lineitems": p.Server.URL + "/lineitems"}
		if l.LineItem != "" {
			ags["lineitem"] = p.LineItemURL(l.LineItem)
		}
		c["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"] = ags
	default:
		return nil, fmt.Errorf("unknown lti_message_hint %q", message)
	}
	return c, nil
}

// Sign signs claims with the platform's key (RS256).
func (p *Platform) Sign(claims jwt.MapClaims) (string, error) {
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	t.Header["kid"] = p.kid
	return t.SignedString(p.key)
}

// PublicKeyPEM-free forgeries for the refusal tests.

// SignUnknownKid signs with a key the platform never published.
func (p *Platform) SignUnknownKid(claims jwt.MapClaims) string {
	k, _ := rsa.GenerateKey(rand.Reader, 2048)
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	t.Header["kid"] = "never-published"
	s, _ := t.SignedString(k)
	return s
}

// SignNone is an unsigned token (alg none).
func (p *Platform) SignNone(claims jwt.MapClaims) string {
	t := jwt.NewWithClaims(jwt.SigningMethodNone, claims)
	t.Header["kid"] = p.kid
	s, _ := t.SignedString(jwt.UnsafeAllowNoneSignatureType)
	return s
}

// SignHS256WithPublicKey is the key-confusion forgery: HMAC keyed with the platform's public
// key as published (its JWK's modulus bytes).
func (p *Platform) SignHS256WithPublicKey(claims jwt.MapClaims) string {
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	t.Header["kid"] = p.kid
	s, _ := t.SignedString([]byte(lti.PublicJWK(p.kid, &p.key.PublicKey).N))
	return s
}

// toolKey fetches the tool's JWKS and returns the key kid.
func (p *Platform) toolKey(kid string) (*rsa.PublicKey, error) {
	resp, err := http.Get(p.ToolJWKS)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var set lti.JWKS
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		return nil, err
	}
	for _, k := range set.Keys {
		if k.Kid == kid {
			return k.RSA()
		}
	}
	return nil, fmt.Errorf("the tool's JWKS has no key %q", kid)
}

// verifyTool verifies a JWT the tool signed.
func (p *Platform) verifyTool(raw string, opts ...jwt.ParserOption) (jwt.MapClaims, error) {
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		return p.toolKey(kid)
	}, append([]jwt.ParserOption{jwt.WithValidMethods([]string{"RS256"}), jwt.WithExpirationRequired(), jwt.WithIssuedAt()}, opts...)...)
	return claims, err
}

// token is the OAuth 2 token endpoint: client_credentials with a private_key_jwt assertion.
func (p *Platform) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		p.refuse(w, http.StatusBadRequest, "token: %v", err)
		return
	}
	if r.PostForm.Get("grant_type") != "client_credentials" ||
		r.PostForm.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
		p.refuse(w, http.StatusBadRequest, "token: want client_credentials with a jwt-bearer client assertion")
		return
	}
	claims, err := p.verifyTool(r.PostForm.Get("client_assertion"), jwt.WithIssuer(p.ClientID), jwt.WithSubject(p.ClientID),
		jwt.WithAudience(p.Server.URL+"/token"))
	if err != nil {
		p.refuse(w, http.StatusUnauthorized, "token: client assertion: %v", err)
		return
	}
	jti, _ := claims["jti"].(string)
	p.mu.Lock()
	replay := jti == "" || p.jtis[jti]
	p.jtis[jti] = true
	p.mu.Unlock()
	if replay {
		p.refuse(w, http.StatusUnauthorized, "token: client assertion without a fresh jti")
		return
	}
	known := []string{lti.ScopeScore, lti.ScopeLineItem, lti.ScopeMembership, "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
		"https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"}
	var granted []string
	for _, s := range strings.Fields(r.PostForm.Get("scope")) {
		if !slices.Contains(known, s) {
			p.refuse(w, http.StatusBadRequest, "token: unknown scope %q", s)
			return
		}
		granted = append(granted, s)
	}
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	tok := base64.RawURLEncoding.EncodeToString(b)
	p.mu.Lock()
	p.tokens[tok] = granted
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600, "scope": strings.Join(granted, " ")})
}

// authorized reports whether r carries a token granted scope.
func (p *Platform) authorized(r *http.Request, scope string) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	defer p.mu.Unlock()
	return ok && slices.Contains(p.tokens[tok], scope)
}

func (p *Platform) listLineItems(w http.ResponseWriter, r *http.Request) {
	if !p.authorized(r, lti.ScopeLineItem) && !p.authorized(r, "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly") {
		p.refuse(w, http.StatusUnauthorized, "lineitems: no token with a line item scope")
		return
	}
	p.mu.Lock()
	var out []map[string]any
	for id, li := range p.lineItems {
		out = append(out, map[string]any{"id": p.LineItemURL(id), "scoreMaximum": li.ScoreMaximum, "label": li.Label, "resourceId": li.ResourceID})
	}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/vnd.ims.lis.v2.lineitemcontainer+json")
	_ = json.NewEncoder(w).Encode(out)
}

// postScore is AGS's score publish service.
func (p *Platform) postScore(w http.ResponseWriter, r *http.Request) {
	if !p.authorized(r, lti.ScopeScore) {
		p.refuse(w, http.StatusUnauthorized, "scores: no token with the score scope")
		return
	}
	if r.Header.Get("Content-Type") != "application/vnd.ims.lis.v1.score+json" {
		p.refuse(w, http.StatusUnsupportedMediaType, "scores: Content-Type %q", r.Header.Get("Content-Type"))
		return
	}
	id := r.PathValue("id")
	p.mu.Lock()
	li, ok := p.lineItems[id]
	p.mu.Unlock()
	if !ok {
		p.refuse(w, http.StatusNotFound, "scores: no line item %q", id)
		return
	}
	var sc lti.Score
	if err := json.NewDecoder(r.Body).Decode(&sc); err != nil {
		p.refuse(w, http.StatusBadRequest, "scores: %v", err)
		return
	}
	if _, err := time.Parse(time.RFC3339, sc.Timestamp); err != nil {
		p.refuse(w, http.StatusBadRequest, "scores: timestamp %q is not ISO 8601", sc.Timestamp)
		return
	}
	p.mu.Lock()
	_, user := p.users[sc.UserID]
	p.mu.Unlock()
	switch {
	case !user:
		p.refuse(w, http.StatusBadRequest, "scores: userId %q is not in the course", sc.UserID)
		return
	case sc.ScoreGiven != nil && (sc.ScoreMaximum == nil || *sc.ScoreGiven < 0 || *sc.ScoreMaximum <= 0):
		p.refuse(w, http.StatusBadRequest, "scores: scoreGiven needs a positive scoreMaximum")
		return
	case sc.ActivityProgress == "" || sc.GradingProgress == "":
		p.refuse(w, http.StatusBadRequest, "scores: activityProgress and gradingProgress are required")
		return
	}
	_ = li
	p.mu.Lock()
	p.scores = append(p.scores, ScoreRecord{LineItem: id, Score: sc})
	p.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// memberships is NRPS's context membership service, two members a page.
func (p *Platform) memberships(w http.ResponseWriter, r *http.Request) {
	if !p.authorized(r, lti.ScopeMembership) {
		p.refuse(w, http.StatusUnauthorized, "memberships: no token with the membership scope")
		return
	}
	p.mu.Lock()
	var subs []string
	for s := range p.users {
		subs = append(subs, s)
	}
	slices.Sort(subs)
	var members []lti.Member
	for _, s := range subs {
		u := p.users[s]
		members = append(members, lti.Member{Status: "Active", Name: u.Name, Email: u.Email, UserID: u.Sub, Roles: u.Roles})
	}
	p.mu.Unlock()
	page := 0
	fmt.Sscan(r.URL.Query().Get("page"), &page)
	const per = 2
	from, to := page*per, min((page+1)*per, len(members))
	if from > len(members) {
		from = len(members)
	}
	if to < len(members) {
		w.Header().Set("Link", fmt.Sprintf(`<%s/memberships?page=%d>; rel="next"`, p.Server.URL, page+1))
	}
	w.Header().Set("Content-Type", "application/vnd.ims.lti-nrps.v2.membershipcontainer+json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": p.Server.URL + "/memberships",
		"context": map[string]any{"id": p.ContextID, "label": "ORAL101", "title": "Oral examinations 101"}, "members": members[from:to]})
}

// deepLinkReturn verifies the tool's Deep Linking response and records its items.
func (p *Platform) deepLinkReturn(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		p.refuse(w, http.StatusBadRequest, "deep link return: %v", err)
		return
	}
	claims, err := p.verifyTool(r.PostForm.Get("JWT"), jwt.WithIssuer(p.ClientID), jwt.WithAudience(p.Issuer))
	if err != nil {
		p.refuse(w, http.StatusUnauthorized, "deep link return: %v", err)
		return
	}
	if claims["https://purl.imsglobal.org/spec/lti/claim/message_type"] != "LtiDeepLinkingResponse" ||
		claims["https://purl.imsglobal.org/spec/lti/claim/version"] != "1.3.0" ||
		claims["https://purl.imsglobal.org/spec/lti/claim/deployment_id"] != p.DeploymentID ||
		claims["https://purl.imsglobal.org/spec/lti-dl/claim/data"] != "dl-opaque-42" || claims["nonce"] == nil {
		p.refuse(w, http.StatusBadRequest, "deep link return: message type, version, deployment, data or nonce wrong: %v", claims)
		return
	}
	items, _ := claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"].([]any)
	p.mu.Lock()
	for _, it := range items {
		m, _ := it.(map[string]any)
		p.deepLinked = append(p.deepLinked, m)
		if li, ok := m["lineItem"].(map[string]any); ok {
			max, _ := li["scoreMaximum"].(float64)
			id := fmt.Sprintf("li-%d", len(p.lineItems)+1)
			p.lineItems[id] = lti.LineItem{ScoreMaximum: max, Label: fmt.Sprint(li["label"]), ResourceID: fmt.Sprint(li["resourceId"])}
			custom := map[string]string{}
			if c, ok := m["custom"].(map[string]any); ok {
				for k, v := range c {
					custom[k] = fmt.Sprint(v)
				}
			}
			linkID := fmt.Sprintf("rl-%d", len(p.links)+1)
			p.links[linkID] = Link{ID: linkID, Title: fmt.Sprint(m["title"]), Custom: custom, LineItem: id}
		}
	}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("placed"))
}

var (
	hiddenField = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	formAction  = regexp.MustCompile(`<form method="post" action="([^"]+)"`)
	htmlEntity  = strings.NewReplacer("&amp;", "&", "&#43;", "+", "&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">")
)

// SubmitForm posts the auto-submitting form of an HTML page (the platform's launch, the tool's
// Deep Linking return) with c, as the browser's onload does.
func SubmitForm(t testing.TB, c *http.Client, page string) *http.Response {
	t.Helper()
	act := formAction.FindStringSubmatch(page)
	if act == nil {
		t.Fatalf("no form in:\n%s", page)
	}
	resp, err := c.PostForm(htmlEntity.Replace(act[1]), FormValues(page))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// PostFrom posts vals to target as a page of origin does (its Origin header): how the tool's
// own pages post their forms, which the tool checks.
func PostFrom(t testing.TB, c *http.Client, target, origin string, vals url.Values) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(vals.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// FormValues are the hidden fields of an HTML page's form.
func FormValues(page string) url.Values {
	vals := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(page, -1) {
		vals.Set(m[1], htmlEntity.Replace(m[2]))
	}
	return vals
}

// Unescape undoes the HTML escaping of an attribute value.
func Unescape(s string) string { return htmlEntity.Replace(s) }
