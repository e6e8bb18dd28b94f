package web_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/cmd/examtui/internal/candidate/web"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/sessions"
)

// site is the real candidate server (examtui serve's handler) over HTTP on loopback, with its
// own store of join codes, handing out tokens for lk's room.
type site struct {
	URL string
	lk  *lktest.Server
	st  *sessions.Store
}

func startSite(t testing.TB, lk *lktest.Server) *site {
	t.Helper()
	if !web.Built() {
		t.Fatal("the candidate page is not built into this test binary: run make web (make test does)")
	}
	st := apptest.OpenStore(t, t.TempDir())
	srv, err := candidate.New(candidate.Config{Store: st, LiveKitURL: lk.URL, APIKey: lk.APIKey, APISecret: lk.Secret})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return &site{URL: ts.URL, lk: lk, st: st}
}

// code makes a one-time join code for identity in lk's room.
func (s *site) code(t testing.TB, identity string) string {
	t.Helper()
	c, err := candidate.NewCode(context.Background(), s.st, candidate.Invite{Room: s.lk.Room, Identity: identity}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (s *site) link(code string) string { return s.URL + "/join/" + code }
