package ltitest_test

import (
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/lti/ltitest"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/internal/testutil"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// EnvLTIJS names the ltijs cross-check tool (tools/ltijs/tool.js installed with its pinned
// packages by `make ltijs`); by default <module root>/bin/ltijs/tool.js.
const EnvLTIJS = "EXAMTUI_LTIJS"

func ltijsTool(t *testing.T) string {
	t.Helper()
	return testutil.InstalledTool(t, EnvLTIJS, "ltijs/tool.js", "ltijs")
}

// TestStandInWithLtijs runs ltijs, an independent, IMS-certified LTI 1.3 tool, against the
// stand-in platform, on the tests' PostgreSQL: the stand-in's OIDC login, its id_token, its
// token endpoint (ltijs's own client assertion) and its score service must all satisfy it, so
// the stand-in is not only examtui's reading of the specifications.
func TestStandInWithLtijs(t *testing.T) {
	testutil.SkipIfShort(t, "ltijs (Node) and PostgreSQL")
	tool := ltijsTool(t)
	db, err := url.Parse(pgtest.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := db.User.Password()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	base := "http://127.0.0.1:" + strconv.Itoa(port)

	plat := ltitest.Start(t)
	plat.ToolLogin, plat.ToolLaunch, plat.ToolJWKS = base+"/login", base+"/", base+"/keys"
	plat.AddLink(ltitest.Link{ID: "rl-ltijs", Title: "Scored by ltijs"}, 9)

	cmd := exec.Command("node", tool)
	cmd.Env = append(os.Environ(), "PGHOST="+db.Hostname(), "PGPORT="+db.Port(), "PGUSER="+db.User.Username(), "PGPASSWORD="+pw,
		"PGDATABASE="+strings.TrimPrefix(db.Path, "/"), "LTIJS_KEY=examtui-crosscheck-key", "PORT="+strconv.Itoa(port),
		"PLATFORM="+plat.Issuer, "CLIENT_ID="+plat.ClientID, "SCORE=5", "SCORE_MAX=9")
	var stderr testutil.SyncBuffer
	cmd.Stderr = &stderr
	lines := testutil.StartLines(t, cmd)
	for testutil.Recv(t, lines, 60*time.Second, "ltijs to start (stderr: %s)", &stderr) != "ready" {
	}

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	q := url.Values{"iss": {plat.Issuer}, "login_hint": {ltitest.Learner.Sub}, "target_link_uri": {plat.ToolLaunch},
		"lti_message_hint": {"link:rl-ltijs"}, "client_id": {plat.ClientID}, "lti_deployment_id": {plat.DeploymentID}}
	resp, err := c.PostForm(plat.ToolLogin, q)
	if err != nil {
		t.Fatal(err)
	}
	page := read(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("ltijs login → the stand-in's auth: %d %s (refused %v; ltijs: %s)", resp.StatusCode, page, plat.Refused(), stderr.String())
	}
	resp = ltitest.SubmitForm(t, c, page)
	if b := read(t, resp); resp.StatusCode != 200 || b != "ltijs launched learner-7 and posted a score" {
		t.Fatalf("ltijs's launch: %d %q (stand-in refused %v; ltijs: %s)", resp.StatusCode, b, plat.Refused(), stderr.String())
	}
	sc := plat.Scores()
	if len(sc) != 1 || sc[0].Score.UserID != "learner-7" || *sc[0].Score.ScoreGiven != 5 || *sc[0].Score.ScoreMaximum != 9 {
		t.Fatalf("scores at the stand-in: %+v", sc)
	}
}

func read(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
