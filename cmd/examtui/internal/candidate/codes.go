package candidate

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/examtui/examtui/sessions"
)

// DefaultLinkTTL is how long a new join link can be used for the first time.
const DefaultLinkTTL = 24 * time.Hour

// secretBytes is the size of a join code and of a seat cookie: 128 random bits.
const secretBytes = 16

// Invite says whom a join code admits: the candidate's identity and display name in a room.
type Invite struct {
	Room     string
	Identity string
	Name     string // display name; empty: the identity
	// CandidateID is the roster candidate the link is for ("" for none): the room exam attaches
	// it to its session when the candidate arrives. It must be in the store's roster.
	CandidateID string
	// TTL is how long the code can be used for the first time (0: DefaultLinkTTL).
	TTL time.Duration
	// Language is the exam's language (a BCP-47 tag), which the link carries for the page
	// (LanguageParam); "": the server's default language.
	Language string
}

// NewCode creates a one-time join code for inv in the store and returns it. The code is shown
// once (in the link); the store keeps its SHA-256 only.
func NewCode(ctx context.Context, st *sessions.Store, inv Invite, now time.Time) (string, error) {
	if inv.Room == "" || inv.Identity == "" {
		return "", fmt.Errorf("%w: a join code needs a room and an identity", ErrInvalidConfig)
	}
	if inv.TTL < 0 {
		return "", fmt.Errorf("%w: link TTL %v, want more than 0", ErrInvalidConfig, inv.TTL)
	}
	if inv.TTL == 0 {
		inv.TTL = DefaultLinkTTL
	}
	code := newSecret()
	err := st.CreateJoinCode(ctx, sessions.JoinCode{
		CodeHash: hashSecret(code), Room: inv.Room, Identity: inv.Identity, DisplayName: inv.Name, CandidateID: inv.CandidateID,
		Created: now, Expires: now.Add(inv.TTL),
	})
	if err != nil {
		return "", err
	}
	return code, nil
}

// Link is the candidate's join link for code on the server at base (http(s)://HOST:PORT, or
// the public URL of a reverse proxy).
func Link(base, code string) (string, error) {
	if err := CheckBaseURL(base); err != nil {
		return "", err
	}
	return strings.TrimRight(base, "/") + "/join/" + code, nil
}

// CheckBaseURL reports whether base can carry join links: an http or https URL with a host and
// nothing else. The page asks for /assets/ and /api/join from the root of its host, so a proxy
// must give the server a host of its own rather than a path under another site.
func CheckBaseURL(base string) error {
	u, err := url.Parse(base)
	switch {
	case err != nil:
		return fmt.Errorf("%w %q: %w", ErrInvalidBaseURL, base, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%w %q: want http:// or https://", ErrInvalidBaseURL, base)
	case u.Host == "":
		return fmt.Errorf("%w %q: no host", ErrInvalidBaseURL, base)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return fmt.Errorf("%w %q: want no query, fragment or user", ErrInvalidBaseURL, base)
	case u.Path != "" && u.Path != "/":
		return fmt.Errorf("%w %q: want the root of a host (the page's files and API are at /assets/ and /api/), not a path", ErrInvalidBaseURL, base)
	}
	return nil
}

// newSecret returns 128 random bits, URL-safe.
func newSecret() string {
	b := make([]byte, secretBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it panics if the OS cannot give randomness)
	return base64.RawURLEncoding.EncodeToString(b)
}

// wellFormed reports whether s looks like a code or seat newSecret made, so garbage is refused
// before it reaches the store.
func wellFormed(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == secretBytes
}

// hashSecret is what the store keeps of a code or a seat cookie.
func hashSecret(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// digest is how a log names a code: enough to tell codes apart, useless to redeem one.
func digest(code string) string { return hashSecret(code)[:8] }

// EnvServeURL names the environment variable holding the candidate server's address for links
// (the config file's serve.url sets it too).
const EnvServeURL = "EXAMTUI_SERVE_URL"

// ServeURL is the base of join links: the flag's value, else $EXAMTUI_SERVE_URL (where the
// config file's serve.url lands); "" when neither is set.
func ServeURL(flagValue string) string {
	if v := strings.TrimSpace(flagValue); v != "" {
		return v
	}
	return strings.TrimSpace(os.Getenv(EnvServeURL))
}

// NewLink creates a join code for inv and returns its link on the server at base: the one
// function every command and the control room give links with.
func NewLink(ctx context.Context, st *sessions.Store, base string, inv Invite, now time.Time) (string, error) {
	if err := CheckBaseURL(base); err != nil {
		return "", err
	}
	code, err := NewCode(ctx, st, inv, now)
	if err != nil {
		return "", err
	}
	link, err := Link(base, code)
	if err != nil || inv.Language == "" {
		return link, err
	}
	return link + "?" + url.Values{LanguageParam: {inv.Language}}.Encode(), nil
}

// DefaultIdentity is the candidate's identity in a room when nothing names one.
const DefaultIdentity = "candidate"

// RoomExam is the exam the control room's link key makes a new link for.
type RoomExam struct {
	SessionID string
	Room      string
	Candidate string        // the candidate's name, for a room that had no link
	TTL       time.Duration // 0: DefaultLinkTTL
}

// RoomLink makes a new link for the candidate of a room exam (the control room's link key): it
// admits the identity, name and roster candidate of the room's latest link, so a candidate given
// a second link (a lost one, a device changed) comes back as the same participant — LiveKit
// drops the older connection of an identity when a newer one joins — or DefaultIdentity under
// the candidate's name for a room that had none. The link opens the page in the language of the
// session's exam, as the stored compiled exam says it.
func RoomLink(ctx context.Context, st *sessions.Store, base string, e RoomExam, now time.Time) (string, error) {
	inv := Invite{Room: e.Room, Identity: DefaultIdentity, Name: e.Candidate, TTL: e.TTL}
	prev, err := st.JoinCodes(ctx, e.Room)
	if err != nil {
		return "", err
	}
	if len(prev) > 0 {
		inv.Identity, inv.Name, inv.CandidateID = prev[0].Identity, prev[0].DisplayName, prev[0].CandidateID
	}
	sess, err := st.Get(ctx, e.SessionID)
	if err != nil {
		return "", fmt.Errorf("the exam's language: %w", err)
	}
	exam, err := sess.Exam()
	if err != nil {
		return "", fmt.Errorf("the exam's language: %w", err)
	}
	inv.Language = exam.Language
	return NewLink(ctx, st, base, inv, now)
}
