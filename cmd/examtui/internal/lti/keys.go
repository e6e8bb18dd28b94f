package lti

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/golang-jwt/jwt/v5"
)

// keyBits is the size of the tool's RSA keys (RS256).
const keyBits = 2048

// KeySet is the tool's signing keys, kept as PEM files (0600) in a directory of their own,
// outside the session store: the newest signs, every one is published in the JWKS so a
// platform still verifies what an older key signed until it is removed.
type KeySet struct {
	dir  string
	mu   sync.Mutex
	keys []toolKey // oldest first
}

type toolKey struct {
	kid  string
	key  *rsa.PrivateKey
	file string
}

// OpenKeys loads the keys in dir, creating the directory and a first key when there is none.
func OpenKeys(dir string) (*KeySet, error) {
	if dir == "" {
		return nil, fmt.Errorf("%w: no key directory", ErrKeys)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeys, err)
	}
	ks := &KeySet{dir: dir}
	if err := ks.load(); err != nil {
		return nil, err
	}
	if len(ks.keys) == 0 {
		if _, err := ks.Rotate(); err != nil {
			return nil, err
		}
	}
	return ks, nil
}

func (ks *KeySet) load() error {
	names, err := filepath.Glob(filepath.Join(ks.dir, "*.pem"))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKeys, err)
	}
	sort.Strings(names) // file names start with a sortable creation stamp
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrKeys, err)
		}
		blk, _ := pem.Decode(b)
		if blk == nil {
			return fmt.Errorf("%w: %s is not PEM", ErrKeys, n)
		}
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrKeys, n, err)
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return fmt.Errorf("%w: %s is not an RSA key", ErrKeys, n)
		}
		ks.keys = append(ks.keys, toolKey{kid: thumbprint(&rk.PublicKey), key: rk, file: n})
	}
	return nil
}

// Rotate makes a new signing key and returns its key id; older keys stay published.
func (ks *KeySet) Rotate() (string, error) {
	k, err := rsa.GenerateKey(rand.Reader, keyBits)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrKeys, err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrKeys, err)
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	kid := thumbprint(&k.PublicKey)
	name := filepath.Join(ks.dir, fmt.Sprintf("%03d-%s.pem", len(ks.keys)+1, kid[:12]))
	if err := os.WriteFile(name, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return "", fmt.Errorf("%w: %w", ErrKeys, err)
	}
	ks.keys = append(ks.keys, toolKey{kid: kid, key: k, file: name})
	return kid, nil
}

// Retire removes the key kid (no longer published or used); the newest key cannot be retired.
func (ks *KeySet) Retire(kid string) error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	for i, k := range ks.keys {
		if k.kid != kid {
			continue
		}
		if i == len(ks.keys)-1 {
			return fmt.Errorf("%w: %s is the signing key; rotate first", ErrKeys, kid)
		}
		if err := os.Remove(k.file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %w", ErrKeys, err)
		}
		ks.keys = append(ks.keys[:i], ks.keys[i+1:]...)
		return nil
	}
	return fmt.Errorf("%w: no key %s", ErrKeys, kid)
}

// Sign signs claims with the newest key (RS256, its kid in the header).
func (ks *KeySet) Sign(claims jwt.MapClaims) (string, error) {
	ks.mu.Lock()
	k := ks.keys[len(ks.keys)-1]
	ks.mu.Unlock()
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	t.Header["kid"] = k.kid
	return t.SignedString(k.key)
}

// JWK is one public key as RFC 7517 writes it.
type JWK struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
	N   string `json:"n"`
	E   string `json:"e"`
}

// JWKS is a key set document.
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// Public returns the published key set.
func (ks *KeySet) Public() JWKS {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	out := JWKS{Keys: []JWK{}}
	for _, k := range ks.keys {
		out.Keys = append(out.Keys, PublicJWK(k.kid, &k.key.PublicKey))
	}
	return out
}

// PublicJWK writes pub as a signing JWK.
func PublicJWK(kid string, pub *rsa.PublicKey) JWK {
	return JWK{Kty: "RSA", Kid: kid, Use: "sig", Alg: "RS256",
		N: base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
		E: base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes())}
}

// RSA returns the public key of an RSA JWK.
func (j JWK) RSA() (*rsa.PublicKey, error) {
	if j.Kty != "RSA" {
		return nil, fmt.Errorf("key %s: kty %q, want RSA", j.Kid, j.Kty)
	}
	n, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(j.N, "="))
	if err != nil || len(n) < 256 {
		return nil, fmt.Errorf("key %s: bad or short modulus", j.Kid)
	}
	e, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(j.E, "="))
	if err != nil || len(e) == 0 || len(e) > 4 {
		return nil, fmt.Errorf("key %s: bad exponent", j.Kid)
	}
	return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}, nil
}

// thumbprint is the RFC 7638 thumbprint of pub, the key's id.
func thumbprint(pub *rsa.PublicKey) string {
	j := PublicJWK("", pub)
	b, _ := json.Marshal(struct {
		E   string `json:"e"`
		Kty string `json:"kty"`
		N   string `json:"n"`
	}{j.E, j.Kty, j.N})
	h := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(h[:])
}
