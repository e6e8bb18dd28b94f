package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	candsrv "github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/cmd/examtui/internal/candidate/web"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/sessions"
)

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns their paths and a
// pool that trusts the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "examtui serve test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, pool
}

// TestServeCommand runs the real binary: `examtui serve` over HTTPS with a certificate made here,
// a link from `examtui token --link` on the same store, the page (or the 503 of a binary built
// without it), one browser joining and reloading, another refused, SIGINT stopping the server
// cleanly, and a log that names the join without the code, the token, the seat or the secret.
func TestServeCommand(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	srv := startServe(t, nil, "--log-level", "debug", "--tls-cert", certFile, "--tls-key", keyFile)
	base, secret, logFile, cmd, done, stderr := srv.base, serveSecret, srv.logFile, srv.cmd, srv.done, srv.stderr
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("base %q, want https", base)
	}
	link := base + "/join/" + srv.newLink(t, "exam-1", "ada", "--name", "Ada Lovelace")
	code := strings.TrimPrefix(link, base+"/join/")
	if len(code) != 22 {
		t.Fatalf("token --link gave code %q, want 22 characters", code)
	}

	browser := func() *http.Client {
		jar, _ := cookiejar.New(nil)
		return &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	}
	ada := browser()
	resp, err := ada.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wantPage := http.StatusServiceUnavailable
	if web.Built() {
		wantPage = http.StatusOK
	}
	if resp.StatusCode != wantPage || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "wss://lk.example.test https://lk.example.test") {
		t.Fatalf("GET %s: %d %v, want %d with the LiveKit server in the CSP", link, resp.StatusCode, resp.Header, wantPage)
	}
	join := func(c *http.Client) (int, map[string]string, *http.Response) {
		t.Helper()
		resp, err := c.Post(base+"/api/join", "application/json", strings.NewReader(`{"code":"`+code+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]string
		raw, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatalf("join: %d %q", resp.StatusCode, raw)
		}
		return resp.StatusCode, body, resp
	}
	status, body, resp := join(ada)
	if status != http.StatusOK || body["room"] != "exam-1" || body["name"] != "Ada Lovelace" || body["url"] != "wss://lk.example.test" || body["token"] == "" {
		t.Fatalf("join: %d %v", status, body)
	}
	var seat string
	for _, c := range resp.Cookies() {
		if c.Name == candsrv.SeatCookie {
			seat = c.Value
			if !c.Secure {
				t.Errorf("seat cookie over HTTPS without Secure: %+v", c)
			}
		}
	}
	if seat == "" {
		t.Fatal("no seat cookie")
	}
	token := body["token"]
	if status, body, _ := join(ada); status != http.StatusOK {
		t.Fatalf("reload: %d %v", status, body)
	}
	if status, body, _ := join(browser()); status != http.StatusConflict {
		t.Fatalf("another browser: %d %v, want 409", status, body)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := testutil.Recv(t, done, 15*time.Second, "serve to stop on SIGINT"); err != nil {
		t.Fatalf("serve stopped with %v; stderr %s", err, stderr.String())
	}

	raw, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	log := string(raw)
	if !strings.Contains(log, "join admitted") || !strings.Contains(log, "join refused") {
		t.Fatalf("the log does not name the joins:\n%s", log)
	}
	for what, s := range map[string]string{"the code": code, "the API secret": secret, "the token": token, "the seat cookie": seat} {
		if strings.Contains(log, s) || strings.Contains(stderr.String(), s) {
			t.Errorf("%s is in the log or on stderr:\n%s\n%s", what, log, stderr.String())
		}
	}
}

// TestTokenLink: `examtui token --link` refuses what cannot make a candidate's link and
// otherwise stores a code in the command's store and prints its link, on the server named by
// --serve-url or the config file's serve.url.
func TestTokenLink(t *testing.T) {
	t.Setenv(candsrv.EnvServeURL, "")
	os.Unsetenv(candsrv.EnvServeURL) // restored by t.Setenv; unset so the config file counts
	dir := t.TempDir()
	t.Setenv("EXAMTUI_CONFIG", filepath.Join(dir, "none.yaml"))
	args := func(extra ...string) []string {
		return append([]string{"--data-dir", dir, "token", "--room", "exam-9", "--identity", "ada", "--link"}, extra...)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no serve URL", args("--role", "candidate"), "no candidate server for the link"},
		{"not a candidate", args("--role", "examiner", "--serve-url", "http://127.0.0.1:8780"), "--link is for candidates"},
		{"with a dispatch", args("--role", "candidate", "--serve-url", "http://127.0.0.1:8780", "--dispatch-spec", "demo"), "a join link carries no dispatch"},
		{"a serve URL that is not one", args("--role", "candidate", "--serve-url", "127.0.0.1:8780"), "invalid serve URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCmd(t, "", tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want an error saying %q", err, tc.want)
			}
		})
	}

	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("serve:\n  url: https://exam.example.org/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EXAMTUI_CONFIG", cfg)
	links := map[string]bool{}
	for range 2 {
		out, errOut, err := runCmd(t, "", args("--role", "candidate", "--name", "Ada")...)
		if err != nil {
			t.Fatal(err)
		}
		link := strings.TrimSpace(out)
		if code, ok := strings.CutPrefix(link, "https://exam.example.org/join/"); !ok || len(code) != 22 || !strings.Contains(errOut, "one-time join link") {
			t.Fatalf("printed %q / %q", out, errOut)
		}
		links[link] = true
	}
	if len(links) != 2 {
		t.Fatalf("two links alike: %v", links)
	}
	st, err := sessions.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	codes, err := st.JoinCodes(t.Context(), "exam-9")
	if err != nil || len(codes) != 2 || codes[0].Identity != "ada" || codes[0].DisplayName != "Ada" {
		t.Fatalf("stored codes %+v %v", codes, err)
	}
}

// TestDispatchLink: with a candidate server configured, `examtui dispatch` makes the
// candidate's join link in its store and prints it after the dispatch; a serve URL that cannot
// carry links fails the command before anything is dispatched.
func TestDispatchLink(t *testing.T) {
	srv := lktest.Start(t)
	dir := t.TempDir()
	t.Setenv(candsrv.EnvServeURL, "http://127.0.0.1:8780")
	t.Setenv("EXAMTUI_CONFIG", filepath.Join(dir, "none.yaml"))
	dispatch := func(extra ...string) (string, string, error) {
		return runCmd(t, "", append([]string{"--data-dir", dir, "dispatch", "--url", srv.URL, "--api-key", srv.APIKey, "--api-secret", srv.Secret,
			"--room", "exam-d", "--candidate", "Ada Lovelace", "--candidate-identity", "ada", "--wait", "0"}, extra...)...)
	}
	if _, _, err := dispatch("--serve-url", "exam.example.org"); err == nil || !strings.Contains(err.Error(), "invalid serve URL") {
		t.Fatalf("a bad serve URL: %v", err)
	}
	out, errOut, err := dispatch()
	if err != nil || !strings.HasPrefix(out, "AD_") {
		t.Fatalf("dispatch: %v %q %q", err, out, errOut)
	}
	_, link, ok := strings.Cut(errOut, "candidate's join link: ")
	if !ok || !strings.HasPrefix(link, "http://127.0.0.1:8780/join/") {
		t.Fatalf("stderr %q: no join link", errOut)
	}
	st, err := sessions.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	codes, err := st.JoinCodes(t.Context(), "exam-d")
	if err != nil || len(codes) != 1 || codes[0].Identity != "ada" || codes[0].DisplayName != "Ada Lovelace" {
		t.Fatalf("stored codes %+v %v (want one: the bad serve URL stored none)", codes, err)
	}
}

// TestServeRefuses: serve says what is missing before it listens.
func TestServeRefuses(t *testing.T) {
	for _, k := range []string{"LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET"} {
		t.Setenv(k, "")
	}
	certFile, _, _ := selfSigned(t)
	creds := []string{"--url", "ws://127.0.0.1:7880", "--api-key", "devkey", "--api-secret", "0123456789abcdef0123456789abcdef"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no LiveKit URL", []string{"--api-key", "k", "--api-secret", "s"}, "no LiveKit URL"},
		{"no secret", []string{"--url", "ws://127.0.0.1:7880"}, "no API key/secret"},
		{"a certificate without its key", append([]string{"--tls-cert", certFile}, creds...), "--tls-cert and --tls-key go together"},
		{"a key that is not one", append([]string{"--tls-cert", certFile, "--tls-key", certFile}, creds...), "--tls-cert/--tls-key"},
		{"a public URL that is not one", append([]string{"--public-url", "exam.example.org"}, creds...), "invalid serve URL"},
		{"an address that is not one", append([]string{"--addr", "256.0.0.1:1"}, creds...), "listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCmd(t, "", append([]string{"--data-dir", t.TempDir(), "serve"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want an error saying %q", err, tc.want)
			}
		})
	}
}
