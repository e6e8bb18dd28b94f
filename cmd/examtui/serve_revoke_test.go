package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTokenRevoke: `examtui token --revoke` withdraws a candidate's link and its seat: the
// browser that joined with it gets no new token (410), through the real binaries sharing a store.
// Before, a link could not be revoked and its seat minted tokens for 12 hours.
func TestTokenRevoke(t *testing.T) {
	s := startServe(t, nil)
	base, dir, env := s.base, s.dir, s.env
	code := s.newLink(t, "exam-rv", "ada")
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	join := func() (int, string) {
		t.Helper()
		resp, err := c.Post(base+"/api/join", "application/json", strings.NewReader(`{"code":"`+code+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, body := join(); st != http.StatusOK {
		t.Fatalf("join: %d %s", st, body)
	}
	rv := exec.Command(examtuiBinary(t), "token", "--data-dir", dir, "--log-file", filepath.Join(dir, "token.log"), "--revoke", "--room", "exam-rv", "--identity", "ada")
	rv.Env = env
	out, err := rv.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "1 join link(s) revoked") {
		t.Fatalf("token --revoke: %v %s", err, out)
	}
	if st, body := join(); st != http.StatusGone || !strings.Contains(body, "withdrawn") {
		t.Errorf("the seat after --revoke: %d %s, want 410", st, body)
	}
}
