package lti

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// maxServiceBytes bounds what the tool reads of a platform service's answer.
const maxServiceBytes = 4 << 20

// Services calls a platform's services (AGS, NRPS) with access tokens it gets by the client
// credentials grant, authenticating with a JWT signed by the tool's key (private_key_jwt).
type Services struct {
	keys   *KeySet
	client *http.Client
	now    func() time.Time
	mu     sync.Mutex
	tokens map[string]accessToken // by token URL + client + scopes
}

type accessToken struct {
	value   string
	expires time.Time
}

// NewServices returns the service client; client nil gets a 20 s timeout.
func NewServices(keys *KeySet, client *http.Client, now func() time.Time) *Services {
	if client == nil {
		client = &http.Client{Timeout: 20 * time.Second}
	}
	if now == nil {
		now = time.Now
	}
	return &Services{keys: keys, client: client, now: now, tokens: map[string]accessToken{}}
}

// Token returns an access token of p for scopes, reusing one until shortly before it expires.
func (s *Services) Token(ctx context.Context, p Platform, scopes ...string) (string, error) {
	scope := strings.Join(scopes, " ")
	key := p.TokenURL + "\x00" + p.ClientID + "\x00" + scope
	s.mu.Lock()
	if t, ok := s.tokens[key]; ok && s.now().Before(t.expires) {
		s.mu.Unlock()
		return t.value, nil
	}
	s.mu.Unlock()
	now := s.now()
	assertion, err := s.keys.Sign(jwt.MapClaims{
		"iss": p.ClientID, "sub": p.ClientID, "aud": p.TokenURL, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"jti": randomToken(),
	})
	if err != nil {
		return "", err
	}
	form := url.Values{
		"grant_type":            {"client_credentials"},
		"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
		"client_assertion":      {assertion},
		"scope":                 {scope},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	var out struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := s.do(req, &out); err != nil {
		return "", fmt.Errorf("access token from %s: %w", p.TokenURL, err)
	}
	if out.AccessToken == "" {
		return "", fmt.Errorf("%w: access token from %s: empty", ErrService, p.TokenURL)
	}
	life := time.Duration(out.ExpiresIn) * time.Second
	if life <= 0 || life > time.Hour {
		life = time.Hour
	}
	s.mu.Lock()
	s.tokens[key] = accessToken{value: out.AccessToken, expires: now.Add(life - 30*time.Second)}
	s.mu.Unlock()
	return out.AccessToken, nil
}

// do sends req and decodes a 2xx JSON answer into out (nil: discard it).
func (s *Services) do(req *http.Request, out any) error {
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrService, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxServiceBytes+1))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrService, err)
	}
	if len(body) > maxServiceBytes {
		return fmt.Errorf("%w: answer over %d bytes", ErrService, maxServiceBytes)
	}
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(body))
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return fmt.Errorf("%w: HTTP %d: %s", ErrService, resp.StatusCode, msg)
	}
	if out == nil || len(body) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%w: %w", ErrService, err)
	}
	return nil
}

// Progress values of an AGS score.
const (
	ActivityCompleted = "Completed"
	GradingFully      = "FullyGraded"
	GradingPending    = "Pending"
)

// Score is one AGS score (application/vnd.ims.lis.v1.score+json).
type Score struct {
	UserID           string   `json:"userId"`
	ScoreGiven       *float64 `json:"scoreGiven,omitempty"`
	ScoreMaximum     *float64 `json:"scoreMaximum,omitempty"`
	ActivityProgress string   `json:"activityProgress"`
	GradingProgress  string   `json:"gradingProgress"`
	Timestamp        string   `json:"timestamp"`
	Comment          string   `json:"comment,omitempty"`
}

// scoresURL is the scores endpoint of a line item: its URL with /scores before the query.
func scoresURL(lineItem string) (string, error) {
	u, err := url.Parse(lineItem)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%w: line item URL %q", ErrService, lineItem)
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/scores"
	return u.String(), nil
}

// PostScore posts sc to the line item lineItem of p. Posting the same score again is harmless
// (AGS keeps the latest by timestamp), which makes retries idempotent.
func (s *Services) PostScore(ctx context.Context, p Platform, lineItem string, sc Score) error {
	tok, err := s.Token(ctx, p, ScopeScore)
	if err != nil {
		return err
	}
	u, err := scoresURL(lineItem)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(sc)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/vnd.ims.lis.v1.score+json")
	if err := s.do(req, nil); err != nil {
		return fmt.Errorf("score for %s to %s: %w", sc.UserID, u, err)
	}
	return nil
}

// Member is one person of a course roster (NRPS).
type Member struct {
	Status     string   `json:"status,omitempty"`
	Name       string   `json:"name,omitempty"`
	GivenName  string   `json:"given_name,omitempty"`
	FamilyName string   `json:"family_name,omitempty"`
	Email      string   `json:"email,omitempty"`
	UserID     string   `json:"user_id"`
	SourcedID  string   `json:"lis_person_sourcedid,omitempty"`
	Roles      []string `json:"roles"`
}

// maxRosterPages bounds how many pages of a roster the tool follows.
const maxRosterPages = 100

// Members reads a course's roster from its NRPS memberships URL, following the pages.
func (s *Services) Members(ctx context.Context, p Platform, membershipsURL string) ([]Member, error) {
	tok, err := s.Token(ctx, p, ScopeMembership)
	if err != nil {
		return nil, err
	}
	var all []Member
	next := membershipsURL
	for page := 0; next != "" && page < maxRosterPages; page++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Accept", "application/vnd.ims.lti-nrps.v2.membershipcontainer+json")
		resp, err := s.client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("%w: roster %s: %w", ErrService, next, err)
		}
		var doc struct {
			Members []Member `json:"members"`
		}
		err = func() error {
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%w: roster %s: HTTP %d", ErrService, next, resp.StatusCode)
			}
			return json.NewDecoder(io.LimitReader(resp.Body, maxServiceBytes)).Decode(&doc)
		}()
		if err != nil {
			return nil, err
		}
		all = append(all, doc.Members...)
		next = nextLink(resp.Header.Values("Link"))
	}
	return all, nil
}

// nextLink returns the rel="next" URL of Link headers.
func nextLink(links []string) string {
	for _, h := range links {
		for _, part := range strings.Split(h, ",") {
			segs := strings.Split(part, ";")
			if len(segs) < 2 {
				continue
			}
			for _, p := range segs[1:] {
				if strings.ReplaceAll(strings.TrimSpace(p), " ", "") == `rel="next"` {
					return strings.Trim(strings.TrimSpace(segs[0]), "<>")
				}
			}
		}
	}
	return ""
}
