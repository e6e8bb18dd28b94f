package candidate

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/sessions"
)

// TestJoinPageFraming: the join page refuses every frame (frame-ancestors 'none'), except
// that of a room an LMS launch made, which the launching platform's course pages — and only
// theirs — may frame. Every other response keeps 'none'.
func TestJoinPageFraming(t *testing.T) {
	moodle := lti.Platform{Issuer: "https://moodle.example.edu", ClientID: "c1", DeploymentIDs: []string{"1"},
		AuthURL: "https://moodle.example.edu/mod/lti/auth.php", TokenURL: "https://moodle.example.edu/mod/lti/token.php",
		JWKSURL: "https://moodle.example.edu/mod/lti/certs.php"}
	canvas := lti.Platform{Issuer: "https://canvas.instructure.com", ClientID: "10000000000001", DeploymentIDs: []string{"d"},
		AuthURL: "https://sso.canvaslms.com/api/lti/authorize_redirect", TokenURL: "https://sso.canvaslms.com/login/oauth2/token",
		JWKSURL: "https://sso.canvaslms.com/api/lti/security/jwks", FrameOrigins: []string{"https://school.instructure.com"}}
	reg, err := lti.NewRegistry([]lti.Platform{moodle, canvas})
	if err != nil {
		t.Fatal(err)
	}
	var f *fixture
	f = newFixture(t, t.TempDir(), builtPage(t), func(c *Config) {
		c.FrameOrigins = func(ctx context.Context, room string) []string {
			return FrameOrigins(f.st, reg, slog.New(slog.DiscardHandler))(ctx, room)
		}
	})
	now := time.Now()
	for _, l := range []struct {
		p    lti.Platform
		room string
	}{{moodle, "lti-moodle"}, {canvas, "lti-canvas"}} {
		if err := f.st.RecordLTILaunch(context.Background(), sessions.LTILaunch{CandidateID: "lti:x:" + l.room, ResourceLink: "rl", Issuer: l.p.Issuer,
			ClientID: l.p.ClientID, DeploymentID: l.p.DeploymentIDs[0], Subject: "s", Exam: "demo", Room: l.room, Created: now, Updated: now}); err != nil {
			t.Fatal(err)
		}
	}
	frameAncestors := func(path string) string {
		t.Helper()
		resp, err := http.Get(f.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Count(csp, "frame-ancestors") != 1 {
			t.Fatalf("GET %s: CSP %q", path, csp)
		}
		_, fa, _ := strings.Cut(csp, "frame-ancestors ")
		fa, _, _ = strings.Cut(fa, ";")
		return fa
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"a join link's page", "/join/" + f.code(t, Invite{Room: "r", Identity: "ada"}), "'none'"},
		{"launched from Moodle", "/join/" + f.code(t, Invite{Room: "lti-moodle", Identity: "ada"}), "https://moodle.example.edu"},
		{"launched from Canvas Cloud", "/join/" + f.code(t, Invite{Room: "lti-canvas", Identity: "ada"}),
			"https://canvas.instructure.com https://sso.canvaslms.com https://school.instructure.com"},
		{"an unknown code", "/join/" + newSecret(), "'none'"},
		{"not a code", "/join/x", "'none'"},
		{"an asset", "/assets/app.js", "'none'"},
	} {
		if got := frameAncestors(tc.path); got != tc.want {
			t.Errorf("%s: frame-ancestors %s, want %s", tc.name, got, tc.want)
		}
	}
}
