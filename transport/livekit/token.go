package livekit

import (
	"fmt"
	"time"

	"github.com/livekit/protocol/auth"
	lkproto "github.com/livekit/protocol/livekit"
)

// DefaultTokenTTL is how long a token admits its holder when no TTL is given: long enough for an
// exam and the rejoins after a network blip, which reuse the same token.
const DefaultTokenTTL = 6 * time.Hour

// tokenOptions collects TokenOption values.
type tokenOptions struct {
	ttl    time.Duration
	name   string
	agents []*lkproto.RoomAgentDispatch // token_dispatch.go
}

// TokenOption configures NewToken.
type TokenOption func(*tokenOptions)

// WithTTL sets how long the token is valid.
func WithTTL(d time.Duration) TokenOption { return func(o *tokenOptions) { o.ttl = d } }

// WithDisplayName sets the participant's display name (default: the identity).
func WithDisplayName(name string) TokenOption { return func(o *tokenOptions) { o.name = name } }

// NewToken mints a join token for one participant of one room with the least grants its role
// needs and the role attribute the bot trusts:
//   - examiner: can publish data (commands) and subscribe, cannot publish media;
//   - candidate: can publish its microphone and data, and subscribe;
//   - bot: can publish audio (its speech, as a microphone source) and data, and subscribe.
//
// No role may update its own metadata or attributes, so the role cannot be changed after the
// server admitted the participant.
//
// Examiners are not hidden: LiveKit strips the sender identity from a hidden participant's data
// packets and never announces hidden participants to others, so the bot could neither address
// events to a hidden examiner nor authenticate its commands.
func NewToken(apiKey, apiSecret, room, identity string, role Role, opts ...TokenOption) (string, error) {
	o := tokenOptions{ttl: DefaultTokenTTL}
	for _, opt := range opts {
		opt(&o)
	}
	switch {
	case apiKey == "" || apiSecret == "":
		return "", fmt.Errorf("%w: API key and secret are required", ErrInvalidConfig)
	case room == "":
		return "", fmt.Errorf("%w: room name is required", ErrInvalidConfig)
	case identity == "":
		return "", fmt.Errorf("%w: identity is required", ErrInvalidConfig)
	case o.ttl <= 0:
		return "", fmt.Errorf("%w: token TTL must be positive, got %s", ErrInvalidConfig, o.ttl)
	}
	grant, err := grantFor(room, role)
	if err != nil {
		return "", err
	}
	name := o.name
	if name == "" {
		name = identity
	}
	at := auth.NewAccessToken(apiKey, apiSecret).
		SetIdentity(identity).
		SetName(name).
		SetValidFor(o.ttl).
		SetVideoGrant(grant).
		SetAttributes(map[string]string{RoleAttribute: role.String()})
	if len(o.agents) > 0 {
		at.SetAgents(o.agents...)
	}
	jwt, err := at.ToJWT()
	if err != nil {
		return "", fmt.Errorf("sign %s token for %q: %w", role, identity, err)
	}
	return jwt, nil
}

// grantFor returns the least grant a role needs in one room.
func grantFor(room string, role Role) (*auth.VideoGrant, error) {
	g := &auth.VideoGrant{RoomJoin: true, Room: room}
	g.SetCanSubscribe(true)
	g.SetCanPublishData(true)
	g.SetCanUpdateOwnMetadata(false)
	switch role {
	case RoleExaminer:
		g.SetCanPublish(false)
	case RoleCandidate, RoleBot:
		g.SetCanPublish(true)
		g.SetCanPublishSources([]lkproto.TrackSource{lkproto.TrackSource_MICROPHONE})
	default:
		return nil, fmt.Errorf("%w: %s", ErrUnknownRole, role)
	}
	return g, nil
}
