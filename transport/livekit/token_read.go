package livekit

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// TokenInfo is what a join token says about its holder. It is read without the API secret,
// so it proves nothing (the server checks the signature when the holder joins): it lets a
// command refuse a token meant for another room or role at once, in plain words, instead of
// joining the wrong room or waiting for packets that will never come.
type TokenInfo struct {
	Room     string
	Identity string
	Role     Role // RoleUnknown when the token carries no examtui role
	Expires  time.Time
}

// ReadToken reads the claims of a LiveKit join token.
func ReadToken(token string) (TokenInfo, error) {
	parts := strings.Split(strings.TrimSpace(token), ".")
	if len(parts) != 3 {
		return TokenInfo{}, fmt.Errorf("%w: the token is not a LiveKit join token (a JWT)", ErrInvalidConfig)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return TokenInfo{}, fmt.Errorf("%w: the token's claims do not decode", ErrInvalidConfig)
	}
	var c struct {
		Sub        string                `json:"sub"`
		Exp        int64                 `json:"exp"`
		Video      struct{ Room string } `json:"video"`
		Attributes map[string]string     `json:"attributes"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return TokenInfo{}, fmt.Errorf("%w: the token's claims are not JSON", ErrInvalidConfig)
	}
	info := TokenInfo{Room: c.Video.Room, Identity: c.Sub, Role: roleFromAttributes(c.Attributes)}
	if c.Exp > 0 {
		info.Expires = time.Unix(c.Exp, 0)
	}
	return info, nil
}

// CheckToken refuses a token that names another room than room (when room is given) or a
// role not among roles (when roles are given; RoleUnknown among them admits a token with no
// examtui role, such as the one LiveKit's agent dispatch gives a worker's job).
func CheckToken(token, room string, roles ...Role) (TokenInfo, error) {
	info, err := ReadToken(token)
	if err != nil {
		return info, err
	}
	if room != "" && info.Room != room {
		return info, fmt.Errorf("%w: the token admits to room %q, not %q", ErrInvalidConfig, info.Room, room)
	}
	if len(roles) > 0 && !slices.Contains(roles, info.Role) {
		return info, fmt.Errorf("%w: the token's %s is %s, not %s", ErrInvalidConfig, RoleAttribute, info.Role, roles[0])
	}
	return info, nil
}
