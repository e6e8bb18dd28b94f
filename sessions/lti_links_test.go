package sessions_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/sessions"
)

// TestLTILinkTie: a tie persists across a reopen on both engines, is made once (the same exam
// again is a no-op, another is refused), and is per platform, deployment and link.
func TestLTILinkTie(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, target string) {
		ctx := context.Background()
		st, err := sessions.OpenURL(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		link := sessions.LTILink{Issuer: "https://lms", DeploymentID: "d1", ResourceLink: "rl-untied"}
		if _, err := st.LTILinkExam(ctx, link); !errors.Is(err, sessions.ErrNoLTILink) {
			t.Fatalf("untied link: %v", err)
		}
		at := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
		if err := st.TieLTILink(ctx, link, "hotel-breakfast", at); err != nil {
			t.Fatal(err)
		}
		if err := st.TieLTILink(ctx, link, "hotel-breakfast", at.Add(time.Minute)); err != nil {
			t.Fatalf("the same tie again: %v", err)
		}
		if err := st.TieLTILink(ctx, link, "other-exam", at); !errors.Is(err, sessions.ErrLinkTied) {
			t.Fatalf("another exam on a tied link: %v", err)
		}
		if err := st.TieLTILink(ctx, sessions.LTILink{Issuer: "https://lms", ResourceLink: ""}, "x", at); err == nil {
			t.Fatal("a tie without a link was stored")
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		st, err = sessions.OpenURL(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for _, c := range []struct {
			link sessions.LTILink
			want string
		}{
			{link, "hotel-breakfast"},
			{sessions.LTILink{Issuer: "https://lms", DeploymentID: "d2", ResourceLink: "rl-untied"}, ""},
			{sessions.LTILink{Issuer: "https://other", DeploymentID: "d1", ResourceLink: "rl-untied"}, ""},
		} {
			got, err := st.LTILinkExam(ctx, c.link)
			if c.want == "" && !errors.Is(err, sessions.ErrNoLTILink) || c.want != "" && (err != nil || got != c.want) {
				t.Errorf("after reopen, %+v: %q %v, want %q", c.link, got, err, c.want)
			}
		}
	})
}
