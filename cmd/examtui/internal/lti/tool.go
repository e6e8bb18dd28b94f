package lti

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Launcher does what a verified launch asks: the wiring implements it (a learner's join, an
// instructor's page, the exam picker of a Deep Linking request).
type Launcher interface {
	// Learner admits the learner of l to the exam of l's resource link.
	Learner(w http.ResponseWriter, r *http.Request, l *Launch)
	// Instructor shows l's instructor the examiner's page.
	Instructor(w http.ResponseWriter, r *http.Request, l *Launch)
}

// CatalogExam is one exam an instructor can place in a course.
type CatalogExam struct {
	ID           string  // the exam's spec name (what a worker runs)
	Title        string  // shown in the picker and as the link's title
	ScoreMaximum float64 // the marking scheme's maximum: the line item's scoreMaximum (0: no line item)
	Language     string  // the exam's language (BCP-47): the join page a learner's launch opens is in it
}

// Catalog lists the exams the picker offers.
type Catalog interface {
	Exams() ([]CatalogExam, error)
}

// Config is what a Tool needs.
type Config struct {
	Platforms *Registry
	Keys      *KeySet
	// BaseURL is the tool's public address (https://HOST[:PORT]), the root of its endpoints:
	// BaseURL/lti/login, BaseURL/lti/launch, BaseURL/.well-known/jwks.json.
	BaseURL  string
	Launcher Launcher
	Catalog  Catalog
	// SecureCookies marks the login-state cookie Secure and SameSite=None (needed when the
	// platform is another site, over HTTPS); plain-HTTP loopback tests use Lax.
	SecureCookies bool
	HTTPClient    *http.Client
	Logger        *slog.Logger
	Now           func() time.Time
}

// Tool serves the LTI endpoints.
type Tool struct {
	cfg    Config
	log    *slog.Logger
	keys   *keyCache
	states *stateStore
	links  *deepLinks
	origin string // the tool's own origin (BaseURL's), which PathVerify's POSTs must carry
}

// New validates cfg.
func New(cfg Config) (*Tool, error) {
	if cfg.Platforms == nil || cfg.Keys == nil || cfg.Launcher == nil || cfg.Catalog == nil {
		return nil, fmt.Errorf("%w: platforms, keys, a launcher and a catalog are required", ErrInvalidConfig)
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("%w: base URL %q: want http(s)://HOST[:PORT]", ErrInvalidConfig, cfg.BaseURL)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Tool{cfg: cfg, log: cfg.Logger,
		keys:   &keyCache{client: cfg.HTTPClient, now: cfg.Now, sets: map[string]*cachedKeys{}},
		states: newStateStore(cfg.Now), links: &deepLinks{now: cfg.Now, open: map[string]deepLinkWait{}}, origin: origin(u)}, nil
}

// Paths of the tool's endpoints.
const (
	PathLogin  = "/lti/login"
	PathLaunch = "/lti/launch"
	PathJWKS   = "/.well-known/jwks.json"
	PathPick   = "/lti/deeplink"
)

// LoginURL, LaunchURL and JWKSURL are what a platform administrator pastes into the LMS.
func (t *Tool) LoginURL() string  { return t.cfg.BaseURL + PathLogin }
func (t *Tool) LaunchURL() string { return t.cfg.BaseURL + PathLaunch }
func (t *Tool) JWKSURL() string   { return t.cfg.BaseURL + PathJWKS }

// Register adds the tool's routes to mux.
func (t *Tool) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET "+PathLogin, t.login)
	mux.HandleFunc("POST "+PathLogin, t.login)
	mux.HandleFunc("POST "+PathLaunch, t.launch)
	mux.HandleFunc("GET "+PathJWKS, t.jwks)
	mux.HandleFunc("POST "+PathPick, t.pick)
	mux.HandleFunc("GET "+PathStorageJS, t.storageScript)
	mux.HandleFunc("POST "+PathVerify, t.verify)
}

func (t *Tool) jwks(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_ = json.NewEncoder(w).Encode(t.cfg.Keys.Public())
}

// refuse answers a refused login or launch: a plain page with the reason, nothing stored.
func (t *Tool) refuse(w http.ResponseWriter, status int, err error) {
	t.log.Info("lti refused", "status", status, "reason", err.Error())
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "This launch was refused: %s\n", err)
}

// randomToken returns 128 random bits, URL-safe.
func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Keys returns the tool's key set (the services sign with it).
func (t *Tool) Keys() *KeySet { return t.cfg.Keys }
