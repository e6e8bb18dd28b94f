package lti_test

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/cmd/examtui/internal/lti/ltitest"
	"github.com/examtui/examtui/internal/browsertest"
	"github.com/examtui/examtui/internal/testutil"
)

// crossSiteFixture is the tool on another site than the platform: the platform (its course
// page, auth and storage frame) on http://127.0.0.1:P, the tool on http://localhost:Q, so the
// tool in the course page's iframe is third-party. Its state cookie is SameSite=None; Secure
// (allowed on localhost), so only the browser's third-party cookie blocking keeps it out.
func crossSiteFixture(t *testing.T) (*fixture, *testutil.SyncBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	srv.Start()
	t.Cleanup(srv.Close)
	srv.URL = "http://localhost:" + strings.TrimPrefix(ln.Addr().String(), "127.0.0.1:")
	logs := &testutil.SyncBuffer{}
	f := startFixture(t, srv, mux, func(c *lti.Config) {
		c.SecureCookies = true
		c.Logger = slog.New(slog.NewTextHandler(logs, nil))
	})
	return f, logs
}

func (f *fixture) launches() []string {
	f.rec.mu.Lock()
	defer f.rec.mu.Unlock()
	return append([]string(nil), f.rec.launches...)
}

// TestPlatformStorageInChromium: the course page on one site embeds the tool from another in
// an iframe, in a Chromium that blocks third-party cookies. Without platform storage the
// launch is refused (no cookie came back: the blocking is real); with it, the login's state
// and nonce go into the course page's storage frame and come back, and the learner is in;
// a storage that answers with another state gets the launch refused.
func TestPlatformStorageInChromium(t *testing.T) {
	b := browsertest.Start(t, browsertest.WithFlag("test-third-party-cookie-phaseout", true))
	waitLog := func(logs *testutil.SyncBuffer, want string) {
		t.Helper()
		testutil.Eventually(t, 30*time.Second, func() bool { return strings.Contains(logs.String(), want) }, "the tool to log "+want)
	}

	t.Run("cookie only, top-level window", func(t *testing.T) {
		// The control: the same login with the cookie alone succeeds where the tool is the
		// top-level page (its cookie first-party), so the refusal below is the blocking of the
		// tool's cookie in the course page's iframe. (This Chromium blocks third-party cookies
		// without the flag too; the flag keeps the test honest if that default changes.)
		f, logs := crossSiteFixture(t)
		b.Open(t, f.plat.LoginInitiation(ltitest.Learner, "link:rl-exam"))
		testutil.Eventually(t, 30*time.Second, func() bool { return len(f.launches()) == 1 }, "the learner's launch")
		waitLog(logs, "stateFrom=cookie")
	})

	t.Run("cookie only, in the course page", func(t *testing.T) {
		f, logs := crossSiteFixture(t)
		b.Open(t, f.plat.LMSPage(f.plat.LoginInitiation(ltitest.Learner, "link:rl-exam"), ltitest.StorageHonest))
		waitLog(logs, "no state cookie")
		if got := f.launches(); len(got) != 0 {
			t.Fatalf("launches %v", got)
		}
	})

	t.Run("platform storage", func(t *testing.T) {
		f, logs := crossSiteFixture(t)
		lms := b.Open(t, f.plat.LMSPage(f.plat.LoginInitiationWithStorage(ltitest.Learner, "link:rl-exam", ltitest.StorageFrame), ltitest.StorageHonest))
		testutil.Eventually(t, 30*time.Second, func() bool { return len(f.launches()) == 1 }, "the learner's launch")
		if got := f.launches(); got[0] != "learner:learner-7" {
			t.Fatalf("launches %v", got)
		}
		waitLog(logs, `stateFrom="platform storage"`)
		var subjects []string
		for _, r := range f.plat.StorageLog() {
			if r.Origin != f.srv.URL {
				t.Fatalf("storage used by %q, want the tool's origin %q", r.Origin, f.srv.URL)
			}
			subjects = append(subjects, r.Subject)
			if r.Subject == "lti.get_data" && !r.Found {
				t.Fatalf("get_data of %q found nothing", r.Key)
			}
		}
		if strings.Join(subjects, " ") != "lti.put_data lti.put_data lti.get_data lti.get_data" {
			t.Fatalf("storage log %v", f.plat.StorageLog())
		}
		// The storage frame says what it supports (lti.capabilities), to whoever asks.
		caps := browsertest.Eval[string](lms, `new Promise((resolve) => {
			addEventListener('message', (e) => {
				if (e.data && e.data.subject === 'lti.capabilities.response' && e.data.message_id === 'caps-1') {
					resolve(e.data.supported_messages.map((m) => m.subject).join(' '));
				}
			});
			frames['`+ltitest.StorageFrame+`'].postMessage({subject: 'lti.capabilities', message_id: 'caps-1'}, location.origin);
		})`)
		if caps != "lti.capabilities lti.put_data lti.get_data" {
			t.Fatalf("capabilities %q", caps)
		}
	})

	t.Run("storage answers another state", func(t *testing.T) {
		f, logs := crossSiteFixture(t)
		b.Open(t, f.plat.LMSPage(f.plat.LoginInitiationWithStorage(ltitest.Learner, "link:rl-exam", ltitest.StorageFrame), ltitest.StorageLies))
		waitLog(logs, "does not hold this login's state")
		if got := f.launches(); len(got) != 0 {
			t.Fatalf("launches %v", got)
		}
	})

	t.Run("no storage frame", func(t *testing.T) {
		// The login page opened on its own (no course page around it): a clear error on the
		// page, and the browser does not go on to the platform.
		f, _ := crossSiteFixture(t)
		p := b.Open(t, f.plat.LoginInitiationWithStorage(ltitest.Learner, "link:rl-exam", ltitest.StorageFrame))
		p.WaitText("#lti-error", `storage frame "`+ltitest.StorageFrame+`" was not found`, 10*time.Second)
		if got := f.plat.StorageLog(); len(got) != 0 || len(f.launches()) != 0 {
			t.Fatalf("storage %v, launches %v", got, f.launches())
		}
	})
}
