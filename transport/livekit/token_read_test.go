package livekit_test

import (
	"errors"
	"testing"
	"time"

	"github.com/examtui/examtui/transport/livekit"
)

func TestCheckToken(t *testing.T) {
	mint := func(room, id string, role livekit.Role) string {
		tok, err := livekit.NewToken("devkey", "secret-secret-secret-secret-secret", room, id, role)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	bot := mint("s4", "bot-1", livekit.RoleBot)
	info, err := livekit.ReadToken(bot)
	if err != nil {
		t.Fatal(err)
	}
	if info.Room != "s4" || info.Identity != "bot-1" || info.Role != livekit.RoleBot || time.Until(info.Expires) < time.Hour {
		t.Fatalf("info %+v", info)
	}
	cases := []struct {
		name  string
		token string
		room  string
		roles []livekit.Role
		ok    bool
	}{
		{"same room", bot, "s4", []livekit.Role{livekit.RoleBot}, true},
		{"no room asked", bot, "", []livekit.Role{livekit.RoleBot}, true},
		{"another room", bot, "s3", []livekit.Role{livekit.RoleBot}, false},
		{"candidate for watch", mint("s4", "c", livekit.RoleCandidate), "", []livekit.Role{livekit.RoleExaminer}, false},
		{"examiner for watch", mint("s4", "e", livekit.RoleExaminer), "", []livekit.Role{livekit.RoleExaminer}, true},
		{"any role", mint("s4", "c", livekit.RoleCandidate), "s4", nil, true},
		{"not a JWT", "hello", "", nil, false},
		{"claims not base64", "a.!!!.c", "", nil, false},
		{"claims not JSON", "a.aGVsbG8.c", "", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := livekit.CheckToken(tc.token, tc.room, tc.roles...)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, livekit.ErrInvalidConfig) {
				t.Fatalf("err = %v, want ErrInvalidConfig", err)
			}
		})
	}
}
