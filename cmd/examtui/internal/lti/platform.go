package lti

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"
)

// Platform is one registered LMS: its issuer and the client id it gave examtui, the
// deployments allowed, and its endpoints (docs/lms.md, lti.platforms in the config file).
type Platform struct {
	Issuer        string   `yaml:"issuer" json:"issuer"`
	ClientID      string   `yaml:"clientId" json:"clientId"`
	DeploymentIDs []string `yaml:"deploymentIds" json:"deploymentIds"`
	AuthURL       string   `yaml:"authUrl" json:"authUrl"`
	TokenURL      string   `yaml:"tokenUrl" json:"tokenUrl"`
	JWKSURL       string   `yaml:"jwksUrl" json:"jwksUrl"`
	// FrameOrigins are more origins whose pages show the tool in a frame (CoursePageOrigins).
	FrameOrigins []string `yaml:"frameOrigins,omitempty" json:"frameOrigins,omitempty"`
}

// httpOrigin is the origin of an http(s) URL, or false: the form a CSP source and a browser's
// Origin take.
func httpOrigin(u string) (string, bool) {
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "https" && pu.Scheme != "http") || pu.Host == "" || pu.User != nil {
		return "", false
	}
	return origin(pu), true
}

// CoursePageOrigins are the origins whose pages may show the tool in a frame (the join page's
// frame-ancestors): the issuer's and the authorization URL's, where Moodle and a self-hosted
// Canvas serve their course pages, and FrameOrigins for a platform whose course pages are on
// another host (Canvas Cloud: the school's own instructure.com host).
func (p Platform) CoursePageOrigins() []string {
	var out []string
	for _, u := range append([]string{p.Issuer, p.AuthURL}, p.FrameOrigins...) {
		if o, ok := httpOrigin(u); ok && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// Validate reports what makes p unusable.
func (p Platform) Validate() error {
	switch {
	case p.Issuer == "":
		return fmt.Errorf("%w: a platform needs its issuer", ErrInvalidConfig)
	case p.ClientID == "":
		return fmt.Errorf("%w: platform %s: no clientId", ErrInvalidConfig, p.Issuer)
	case len(p.DeploymentIDs) == 0:
		return fmt.Errorf("%w: platform %s: no deploymentIds", ErrInvalidConfig, p.Issuer)
	}
	for name, u := range map[string]string{"authUrl": p.AuthURL, "tokenUrl": p.TokenURL, "jwksUrl": p.JWKSURL} {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "https" && pu.Scheme != "http") || pu.Host == "" {
			return fmt.Errorf("%w: platform %s: %s %q: want an http(s) URL", ErrInvalidConfig, p.Issuer, name, u)
		}
	}
	for _, u := range p.FrameOrigins {
		// An origin exactly (it goes into a Content-Security-Policy header as it is written).
		if o, ok := httpOrigin(u); !ok || o != u {
			return fmt.Errorf("%w: platform %s: frameOrigins %q: want an origin, https://HOST[:PORT] and nothing more", ErrInvalidConfig, p.Issuer, u)
		}
	}
	return nil
}

// AllowsDeployment reports whether id is one of p's deployments.
func (p Platform) AllowsDeployment(id string) bool { return slices.Contains(p.DeploymentIDs, id) }

// Registry is the set of platforms the tool trusts, looked up by issuer and client id.
type Registry struct {
	platforms []Platform
}

// NewRegistry validates ps.
func NewRegistry(ps []Platform) (*Registry, error) {
	seen := map[[2]string]bool{}
	for _, p := range ps {
		if err := p.Validate(); err != nil {
			return nil, err
		}
		k := [2]string{p.Issuer, p.ClientID}
		if seen[k] {
			return nil, fmt.Errorf("%w: platform %s client %s registered twice", ErrInvalidConfig, p.Issuer, p.ClientID)
		}
		seen[k] = true
	}
	return &Registry{platforms: slices.Clone(ps)}, nil
}

// Find returns the platform of issuer; clientID may be "" when the issuer has one client.
func (r *Registry) Find(issuer, clientID string) (Platform, error) {
	var hits []Platform
	for _, p := range r.platforms {
		if p.Issuer == issuer && (clientID == "" || p.ClientID == clientID) {
			hits = append(hits, p)
		}
	}
	switch len(hits) {
	case 0:
		return Platform{}, fmt.Errorf("%w: issuer %q client %q is not registered (examtui lti register)", ErrUnknownPlatform, issuer, clientID)
	case 1:
		return hits[0], nil
	}
	return Platform{}, fmt.Errorf("%w: issuer %q has several clients; the platform must send client_id", ErrUnknownPlatform, issuer)
}

// maxJWKSBytes bounds a platform's key set document.
const maxJWKSBytes = 1 << 20

// jwksMinRefetch is the least time between two fetches of one platform's keys, so a flood of
// tokens with unknown key ids cannot make the tool hammer the platform.
const jwksMinRefetch = 10 * time.Second

// keyCache holds each platform's published keys; an unknown key id refetches once.
type keyCache struct {
	client *http.Client
	now    func() time.Time
	mu     sync.Mutex
	sets   map[string]*cachedKeys // by JWKS URL
}

type cachedKeys struct {
	keys    map[string]JWK
	fetched time.Time
}

func (c *keyCache) key(ctx context.Context, jwksURL, kid string) (JWK, error) {
	c.mu.Lock()
	set := c.sets[jwksURL]
	c.mu.Unlock()
	if set != nil {
		if k, ok := set.keys[kid]; ok {
			return k, nil
		}
		if c.now().Sub(set.fetched) < jwksMinRefetch {
			return JWK{}, fmt.Errorf("%w: unknown key id %q (the platform's keys were fetched moments ago)", ErrInvalidToken, kid)
		}
	}
	set, err := c.fetch(ctx, jwksURL)
	if err != nil {
		return JWK{}, err
	}
	if k, ok := set.keys[kid]; ok {
		return k, nil
	}
	return JWK{}, fmt.Errorf("%w: unknown key id %q, not in the platform's key set", ErrInvalidToken, kid)
}

func (c *keyCache) fetch(ctx context.Context, jwksURL string) (*cachedKeys, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, jwksURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: platform keys %s: %w", ErrService, jwksURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: platform keys %s: HTTP %d", ErrService, jwksURL, resp.StatusCode)
	}
	var doc JWKS
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: platform keys %s: %w", ErrService, jwksURL, err)
	}
	set := &cachedKeys{keys: map[string]JWK{}, fetched: c.now()}
	for _, k := range doc.Keys {
		if k.Kid != "" && k.Kty == "RSA" {
			set.keys[k.Kid] = k
		}
	}
	c.mu.Lock()
	c.sets[jwksURL] = set
	c.mu.Unlock()
	return set, nil
}
