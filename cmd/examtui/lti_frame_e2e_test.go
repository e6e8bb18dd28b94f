package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	candsrv "github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/cmd/examtui/internal/lti/ltitest"
	"github.com/examtui/examtui/internal/browsertest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
)

// waitLTIExam bounds a wait for the exam in the browser to move on (a launch through the
// platform, the worker taking the dispatch, an examiner's line).
const waitLTIExam = 60 * time.Second

// startWorker runs `examtui worker` for the tool's launches: the agent name serve dispatches
// to, the example exams, the tool's store (pgURL, when not ""; else its data directory), env
// added to its environment; extra are more worker flags.
func (s *ltiServe) startWorker(pgURL string, env []string, extra ...string) *workerProc {
	s.t.Helper()
	p := &pool{t: s.t, srv: s.lk, bin: s.bin, specs: s.examples, data: s.dir, pgURL: pgURL, env: env}
	return p.startWorker("lti-worker", append([]string{"--agent-name", defaultAgentName}, extra...)...)
}

// joinInFrame acknowledges the recording notice and joins with the keyboard in the join page
// inside the course page's iframe, and waits for the exam to start.
func joinInFrame(t *testing.T, lms *browsertest.Page, base string) *browsertest.Page {
	t.Helper()
	tool := lms.Frame(base+"/join/", waitLTIExam)
	tool.Focus("#notice-ack")
	tool.Press(kb.Enter)
	tool.WaitTrue(`!document.querySelector("#join").disabled`, waitLTIExam, "the Join button to be enabled (microphone open)")
	tool.Focus("#join")
	tool.Press(kb.Enter)
	tool.WaitText("#state", "in progress", waitLTIExam)
	return tool
}

// TestLTIJoinPageInCoursePage: the exam inside the course page. The join page of a launched
// room may be framed by the launching platform's course pages only: in Chromium, the stand-in's
// course page (on 127.0.0.1) launches the tool (on localhost, another site) in an iframe
// allowed the microphone, the learner lands on the join page inside it and the exam starts;
// the same learner's join page framed by a page of another origin is refused by the browser
// (frame-ancestors), and nothing is joined from it. Then an instructor in the course page ties
// a link with no exam on the page's picker, and a learner's launch of it starts that exam.
func TestLTIJoinPageInCoursePage(t *testing.T) {
	lk := lktest.Start(t)
	plat := ltitest.Start(t)
	s := startLTIServe(t, lk, plat, "localhost")
	s.startWorker("", nil)
	plat.AddLink(ltitest.Link{ID: "rl-oral", Title: "Hotel breakfast oral", Custom: map[string]string{"exam": "hotel-breakfast"}}, 9)
	b := browsertest.Start(t)

	// Another origin frames a join page of the learner's (a launch's fresh code): refused.
	resp, _ := s.launch(newBrowserClient(), ltitest.Learner, "link:rl-oral")
	if !strings.HasPrefix(resp.Request.URL.Path, "/join/") {
		t.Fatalf("the launch ended at %s; stderr %s", resp.Request.URL, s.stderr.String())
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors "+plat.Server.URL) || strings.Contains(csp, "frame-ancestors 'none'") {
		t.Fatalf("the launched join page's CSP %q does not allow the platform %s to frame it", csp, plat.Server.URL)
	}
	joinURL := resp.Request.URL.String()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>elsewhere</title><iframe id="tool" allow="microphone" width="900" height="600" src="` + joinURL + `"></iframe>`))
	}))
	defer other.Close()
	elsewhere := b.Open(t, other.URL)
	testutil.Eventually(t, waitLTIExam, func() bool {
		for _, l := range elsewhere.Console() {
			if strings.Contains(l, "frame-ancestors "+plat.Server.URL) {
				return true
			}
		}
		return false
	}, "Chromium to refuse the frame from another origin (console: %v)", elsewhere.Console())

	// The course page of the platform: the launch in its iframe (the tool's state cookie is
	// third-party there, so the launch goes through the platform's storage), the join page,
	// the exam.
	lms := b.Open(t, plat.LMSPage(plat.LoginInitiationWithStorage(ltitest.Learner, "link:rl-oral", ltitest.StorageFrame), ltitest.StorageHonest))
	tool := joinInFrame(t, lms, s.base)
	tool.WaitText("#progress", "1 of", waitLTIExam)
	if got := tool.Text("#captions"); strings.TrimSpace(got) == "" {
		t.Error("no examiner line shown in the framed page")
	}

	// An instructor in the course page opens a link with no exam and chooses one on the page's
	// picker, inside the frame of another site: Chromium posts the form with the tool's Origin,
	// and a learner's launch of the link then lands on the chosen exam's join page.
	plat.AddLink(ltitest.Link{ID: "rl-pick", Title: "Oral, exam to be chosen"}, 0)
	course := b.Open(t, plat.LMSPage(plat.LoginInitiationWithStorage(ltitest.Instructor, "link:rl-pick", ltitest.StorageFrame), ltitest.StorageHonest))
	page := course.Frame(s.base+lti.PathVerify, waitLTIExam) // the launch answered through the platform's storage
	page.WaitTrue(`!!document.querySelector('#picker input[value="oral-fr-b2"]')`, waitLTIExam, "the instructor page's exam picker")
	page.Click(`#picker input[value="oral-fr-b2"]`)
	page.Click(`#picker button`)
	course.Frame(s.base+candsrv.PathTie, waitLTIExam).WaitText("#tied", "oral-fr-b2", waitLTIExam)
	resp, _ = s.launch(newBrowserClient(), ltitest.Learner, "link:rl-pick")
	if !strings.HasPrefix(resp.Request.URL.Path, "/join/") || resp.Request.URL.Query().Get("lang") != "fr" {
		t.Fatalf("a learner's launch of the picked link ended at %s (%d)", resp.Request.URL, resp.StatusCode)
	}
}
