package livekit_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"

	"github.com/examtui/examtui/transport/livekit"
)

func TestNewTokenGrantsPerRole(t *testing.T) {
	const key, secret = "key", "0123456789abcdef0123456789abcdef"
	cases := []struct {
		role        livekit.Role
		publish     bool
		sources     []string
		publishData bool
	}{
		{livekit.RoleExaminer, false, nil, true},
		{livekit.RoleCandidate, true, []string{"microphone"}, true},
		{livekit.RoleBot, true, []string{"microphone"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.role.String(), func(t *testing.T) {
			jwt, err := livekit.NewToken(key, secret, "room-1", "id-"+tc.role.String(), tc.role, livekit.WithTTL(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			v, err := auth.ParseAPIToken(jwt)
			if err != nil {
				t.Fatal(err)
			}
			claims, grants, err := v.Verify(secret)
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			if ttl := claims.ExpiresAt.Sub(claims.NotBefore.Time); ttl != time.Hour {
				t.Errorf("ttl = %s, want 1h", ttl)
			}
			if grants.Identity != "id-"+tc.role.String() {
				t.Errorf("identity = %q", grants.Identity)
			}
			if got := grants.Attributes[livekit.RoleAttribute]; got != tc.role.String() {
				t.Errorf("role attribute = %q, want %q", got, tc.role)
			}
			g := grants.Video
			if !g.RoomJoin || g.Room != "room-1" {
				t.Errorf("join grant = %v room %q", g.RoomJoin, g.Room)
			}
			if g.RoomAdmin || g.RoomCreate || g.RoomList || g.RoomRecord || g.Hidden || g.Recorder {
				t.Errorf("more than the least grant: %+v", g)
			}
			if g.GetCanPublish() != tc.publish || g.GetCanPublishData() != tc.publishData || !g.GetCanSubscribe() {
				t.Errorf("publish=%v data=%v subscribe=%v", g.GetCanPublish(), g.GetCanPublishData(), g.GetCanSubscribe())
			}
			if !slices.Equal(g.CanPublishSources, tc.sources) {
				t.Errorf("sources = %v, want %v", g.CanPublishSources, tc.sources)
			}
			if g.GetCanUpdateOwnMetadata() {
				t.Error("a participant could rewrite its own role attribute")
			}
		})
	}
}

func TestNewTokenValidates(t *testing.T) {
	cases := []struct {
		name                     string
		key, secret, room, ident string
		role                     livekit.Role
		opts                     []livekit.TokenOption
		want                     error
	}{
		{"no key", "", "s", "r", "i", livekit.RoleBot, nil, livekit.ErrInvalidConfig},
		{"no secret", "k", "", "r", "i", livekit.RoleBot, nil, livekit.ErrInvalidConfig},
		{"no room", "k", "s", "", "i", livekit.RoleBot, nil, livekit.ErrInvalidConfig},
		{"no identity", "k", "s", "r", "", livekit.RoleBot, nil, livekit.ErrInvalidConfig},
		{"zero ttl", "k", "s", "r", "i", livekit.RoleBot, []livekit.TokenOption{livekit.WithTTL(0)}, livekit.ErrInvalidConfig},
		{"unknown role", "k", "s", "r", "i", livekit.RoleUnknown, nil, livekit.ErrUnknownRole},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := livekit.NewToken(tc.key, tc.secret, tc.room, tc.ident, tc.role, tc.opts...)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}
