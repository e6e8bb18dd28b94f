package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/cmd/examtui/internal/lti/ltitest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/spec"
)

// postPage submits an HTML page's auto-submitting form, as the browser's onload does.
func postPage(t *testing.T, c *http.Client, page string) *http.Response {
	t.Helper()
	return ltitest.SubmitForm(t, c, page)
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ltiServe is the real binary as an LTI tool for a stand-in platform: `examtui lti register`
// for the platform, then `examtui serve` carrying the tool, with the example exams as its specs.
type ltiServe struct {
	t          *testing.T
	bin        string
	dir        string // the data directory (and the SQLite store unless a --store is given)
	base       string // the tool's public URL
	env        []string
	logFile    string
	examples   string
	registered string // what lti register printed
	plat       *ltitest.Platform
	lk         *lktest.Server
	stderr     *testutil.SyncBuffer
}

// startLTIServe registers plat and runs serve on 127.0.0.1, reached at http://host:PORT (host
// "localhost" puts the tool on another site than the stand-in's 127.0.0.1); extra are more
// serve flags (--store).
func startLTIServe(t *testing.T, lk *lktest.Server, plat *ltitest.Platform, host string, extra ...string) *ltiServe {
	t.Helper()
	s := &ltiServe{t: t, bin: examtuiBinary(t), dir: t.TempDir(), plat: plat, lk: lk, stderr: &testutil.SyncBuffer{}}
	cfg := filepath.Join(s.dir, "config.yaml")
	s.logFile = filepath.Join(s.dir, "serve.log")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s.base = "http://" + host + ":" + strconv.Itoa(port)
	s.env = append(os.Environ(), "EXAMTUI_CONFIG="+cfg, "LIVEKIT_API_KEY="+lk.APIKey, "LIVEKIT_API_SECRET="+lk.Secret, "LIVEKIT_URL="+lk.URL)

	reg := plat.Registration()
	register := exec.Command(s.bin, "lti", "register", "--data-dir", s.dir, "--issuer", reg.Issuer, "--client-id", reg.ClientID,
		"--deployment-ids", strings.Join(reg.DeploymentIDs, ","), "--auth-url", reg.AuthURL, "--token-url", reg.TokenURL,
		"--jwks-url", reg.JWKSURL, "--public-url", s.base)
	register.Env = s.env
	out, err := register.CombinedOutput()
	if err != nil {
		t.Fatalf("lti register: %v\n%s", err, out)
	}
	s.registered = string(out)
	plat.ToolLogin, plat.ToolLaunch, plat.ToolJWKS = s.base+"/lti/login", s.base+"/lti/launch", s.base+"/.well-known/jwks.json"

	if s.examples, err = filepath.Abs("../../examples"); err != nil {
		t.Fatal(err)
	}
	serve := exec.Command(s.bin, append([]string{"serve", "--data-dir", s.dir, "--log-file", s.logFile, "--addr", "127.0.0.1:" + strconv.Itoa(port),
		"--public-url", s.base, "--specs", s.examples}, extra...)...)
	serve.Env = s.env
	serve.Stderr = s.stderr
	lines := testutil.StartLines(t, serve)
	for {
		l := testutil.Recv(t, lines, 30*time.Second, "serve's LTI line (stderr: "+s.stderr.String()+")")
		if strings.Contains(l, "LTI 1.3 tool") {
			return s
		}
	}
}

// launch is a platform-initiated login of u for message (link:ID or deeplink) in client c,
// followed through the platform's auth to the tool's answer, which it returns with its body.
func (s *ltiServe) launch(c *http.Client, u ltitest.User, message string) (*http.Response, string) {
	t := s.t
	t.Helper()
	resp, err := c.Get(s.plat.LoginInitiation(u, message))
	if err != nil {
		t.Fatal(err)
	}
	page := readBody(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("login: %d %s (platform refused %v)", resp.StatusCode, page, s.plat.Refused())
	}
	resp = postPage(t, c, page)
	return resp, readBody(t, resp)
}

// newBrowserClient is an HTTP client with a cookie jar of its own: one browser.
func newBrowserClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 20 * time.Second}
}

// TestLTIServe runs the real binary as an LTI tool: `examtui lti register` for the stand-in
// platform, `examtui serve` carrying the tool, a learner's launch that dispatches the exam to
// the learner's room on a real LiveKit server and lands on the join page whose code admits
// them, a relaunch that finds the same room and dispatches nothing more, the instructor's page,
// a Deep Linking placement whose line item carries the marking scheme's maximum, and a link
// placed with no exam that an instructor's launch ties to an exam on the page's picker, whose
// learners' launches then start that exam.
func TestLTIServe(t *testing.T) {
	lk := lktest.Start(t)
	plat := ltitest.Start(t)
	s := startLTIServe(t, lk, plat, "127.0.0.1")
	bin, dir, base, env, logFile, examples, stderr := s.bin, s.dir, s.base, s.env, s.logFile, s.examples, s.stderr
	for _, want := range []string{base + "/lti/login", base + "/lti/launch", base + "/.well-known/jwks.json"} {
		if !strings.Contains(s.registered, want) {
			t.Fatalf("lti register does not print %s:\n%s", want, s.registered)
		}
	}

	plat.AddLink(ltitest.Link{ID: "rl-oral", Title: "Hotel breakfast oral", Custom: map[string]string{"exam": "hotel-breakfast"}}, 9)
	ada := newBrowserClient()
	launch := s.launch
	resp, _ := launch(ada, ltitest.Learner, "link:rl-oral")
	// The join page itself (200, or 503 from a binary built without the page).
	code, ok := strings.CutPrefix(resp.Request.URL.Path, "/join/")
	if !ok || resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("the learner's launch ended at %s (%d); stderr %s", resp.Request.URL, resp.StatusCode, stderr.String())
	}
	joinResp, err := ada.Post(base+"/api/join", "application/json", strings.NewReader(`{"code":"`+code+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var joined map[string]string
	if err := json.Unmarshal([]byte(readBody(t, joinResp)), &joined); err != nil || joined["token"] == "" || joined["name"] != "Ada Lovelace" {
		t.Fatalf("join after the launch: %d %v %v", joinResp.StatusCode, joined, err)
	}
	room := joined["room"]
	if !strings.HasPrefix(room, "lti-hotel-breakfast-") {
		t.Fatalf("room %q", room)
	}
	dispatches := func() []*lkproto.AgentDispatch {
		c := lksdk.NewAgentDispatchServiceClient(lk.HTTPURL, lk.APIKey, lk.Secret)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		l, err := c.ListDispatch(ctx, &lkproto.ListAgentDispatchRequest{Room: room})
		if err != nil {
			t.Fatal(err)
		}
		var ours []*lkproto.AgentDispatch
		for _, d := range l.GetAgentDispatches() {
			if d.GetAgentName() == defaultAgentName {
				ours = append(ours, d)
			}
		}
		return ours
	}
	ds := dispatches()
	if len(ds) != 1 || !strings.Contains(ds[0].GetMetadata(), `"spec":"hotel-breakfast"`) || !strings.Contains(ds[0].GetMetadata(), "Ada Lovelace") ||
		!strings.Contains(ds[0].GetMetadata(), `"candidateId":"lti:`) {
		t.Fatalf("dispatches in %s: %v", room, ds)
	}
	// A relaunch finds the same room and does not start a second exam.
	resp, _ = launch(ada, ltitest.Learner, "link:rl-oral")
	if !strings.HasPrefix(resp.Request.URL.Path, "/join/") || len(dispatches()) != 1 {
		t.Fatalf("relaunch: %s, %d dispatches", resp.Request.URL, len(dispatches()))
	}

	grace := newBrowserClient()
	if _, page := launch(grace, ltitest.Instructor, "link:rl-oral"); !strings.Contains(page, "Ada Lovelace") || !strings.Contains(page, room) ||
		!strings.Contains(page, "1 learner(s) of this course are in the candidate roster") {
		t.Fatalf("instructor page:\n%s", page)
	}
	plat.AddUser(ltitest.User{Sub: "learner-8", Name: "Alan Turing", Roles: []string{"http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"}})
	roster := exec.Command(bin, "lti", "roster", "--data-dir", dir, "--log-file", logFile, "--course", plat.ContextID)
	roster.Env = env
	if out, err := roster.CombinedOutput(); err != nil || !strings.Contains(string(out), "2 learner(s) of course course-101") {
		t.Fatalf("lti roster: %v\n%s", err, out)
	}
	_, picker := launch(grace, ltitest.Instructor, "deeplink")
	tok := regexp.MustCompile(`name="dl" value="([^"]+)"`).FindStringSubmatch(picker)
	exam, _, err := spec.CompileFile(filepath.Join(examples, "hotel-breakfast.yaml"))
	if err != nil || exam.Marking == nil {
		t.Fatalf("the example exam: %v", err)
	}
	maxMarks := float64(exam.Marking.MaxTotal)
	if tok == nil || !strings.Contains(picker, "hotel-breakfast, "+strconv.Itoa(exam.Marking.MaxTotal)+" marks") {
		t.Fatalf("picker:\n%s", picker)
	}
	resp = ltitest.PostFrom(t, grace, base+"/lti/deeplink", base, url.Values{"dl": {tok[1]}, "exam": {"hotel-breakfast"}})
	if b := readBody(t, postPage(t, grace, readBody(t, resp))); b != "placed" {
		t.Fatalf("deep link return: %q (refused %v)", b, plat.Refused())
	}
	items := plat.DeepLinked()
	if len(items) != 1 || items[0]["lineItem"].(map[string]any)["scoreMaximum"] != maxMarks {
		t.Fatalf("placed %v", items)
	}

	// A link placed by hand with no exam: a learner is turned away until an instructor's launch
	// picks one on the page; then the learner's launch starts the picked exam.
	plat.AddLink(ltitest.Link{ID: "rl-untied", Title: "Oral, exam to be chosen"}, 0)
	alan := newBrowserClient()
	if resp, body := launch(alan, ltitest.Learner, "link:rl-untied"); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "has no exam yet") {
		t.Fatalf("a learner on an untied link: %d %s", resp.StatusCode, body)
	}
	_, page := launch(grace, ltitest.Instructor, "link:rl-untied")
	pick := regexp.MustCompile(`name="token" value="([^"]+)"`).FindStringSubmatch(page)
	if pick == nil || !strings.Contains(page, `action="/lti/tie"`) || !strings.Contains(page, `value="oral-fr-b2"`) {
		t.Fatalf("the instructor page of an untied link:\n%s", page)
	}
	tie := func(origin string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, base+"/lti/tie", strings.NewReader(url.Values{"token": {pick[1]}, "exam": {"oral-fr-b2"}}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		resp, err := grace.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, readBody(t, resp)
	}
	if st, body := tie("http://evil.example"); st != http.StatusForbidden {
		t.Fatalf("a picker post from another site: %d %s", st, body)
	}
	if st, body := tie(base); st != http.StatusOK || !strings.Contains(body, "This link now runs") {
		t.Fatalf("the picker: %d %s", st, body)
	}
	if st, body := tie(base); st != http.StatusForbidden {
		t.Fatalf("the picker's token replayed: %d %s", st, body)
	}
	resp, _ = launch(alan, ltitest.Learner, "link:rl-untied")
	code2, ok := strings.CutPrefix(resp.Request.URL.Path, "/join/")
	if !ok || resp.Request.URL.Query().Get("lang") != "fr" {
		t.Fatalf("a learner on the tied link ended at %s (%d)", resp.Request.URL, resp.StatusCode)
	}
	joinResp, err = alan.Post(base+"/api/join", "application/json", strings.NewReader(`{"code":"`+code2+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(readBody(t, joinResp)), &joined); err != nil || !strings.HasPrefix(joined["room"], "lti-oral-fr-b2-") {
		t.Fatalf("join on the tied link: %d %v %v", joinResp.StatusCode, joined, err)
	}
	room = joined["room"]
	if ds := dispatches(); len(ds) != 1 || !strings.Contains(ds[0].GetMetadata(), `"spec":"oral-fr-b2"`) {
		t.Fatalf("dispatches in %s: %v", room, ds)
	}
	if _, page := launch(grace, ltitest.Instructor, "link:rl-untied"); strings.Contains(page, `name="token"`) || !strings.Contains(page, "This link runs the exam <code>oral-fr-b2</code>") {
		t.Fatalf("the instructor page of the tied link:\n%s", page)
	}

	logged, _ := os.ReadFile(logFile)
	if strings.Contains(string(logged), code) || strings.Contains(string(logged), pick[1]) || strings.Contains(string(logged), "eyJ") {
		t.Fatalf("the log holds a join code or a token:\n%s", logged)
	}
}

// TestLTIKeysCommand: keys list, rotate (the new key signs, the old stays published) and
// retire (never the signing key), through the real binary.
func TestLTIKeysCommand(t *testing.T) {
	bin := examtuiBinary(t)
	dir := t.TempDir()
	run := func(args ...string) (string, error) {
		// --data-dir right after the subcommand: what follows "--" is all arguments.
		out, err := exec.Command(bin, append([]string{"lti", "keys", args[0], "--data-dir", dir}, args[1:]...)...).CombinedOutput()
		return string(out), err
	}
	first, err := run("list")
	if err != nil || !strings.HasSuffix(strings.TrimSpace(first), "(signing)") {
		t.Fatalf("list: %v %q", err, first)
	}
	old := strings.Fields(first)[0]
	if out, err := run("rotate"); err != nil || !strings.Contains(out, "new signing key") {
		t.Fatalf("rotate: %v %q", err, out)
	}
	both, _ := run("list")
	if lines := strings.Split(strings.TrimSpace(both), "\n"); len(lines) != 2 || lines[0] != old || !strings.HasSuffix(lines[1], "(signing)") {
		t.Fatalf("after rotate: %q", both)
	}
	// A key id is base64url, so it can begin with '-' (one in 64 does, and was taken for a
	// flag): it goes after "--", as the error says.
	if out, err := run("retire", "-Pq3xmZr"); err == nil || !strings.Contains(out, "goes after '--' ('examtui lti keys retire -- -Pq3xmZr')") {
		t.Fatalf("retire -Pq3xmZr: %v %q", err, out)
	}
	if out, err := run("retire", "--", old); err != nil || !strings.Contains(out, "retired "+old) {
		t.Fatalf("retire: %v %q", err, out)
	}
	now, _ := run("list")
	if out, err := run("retire", "--", strings.Fields(now)[0]); err == nil || !strings.Contains(out, "is the signing key") {
		t.Fatalf("retiring the signing key: %v %q", err, out)
	}
}
