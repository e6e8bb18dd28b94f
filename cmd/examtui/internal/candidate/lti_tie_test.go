package candidate

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/sessions"
)

const tieOrigin = "https://exam.example.edu"

type staticCatalog []lti.CatalogExam

func (c staticCatalog) Exams() ([]lti.CatalogExam, error) { return c, nil }

// recordingDispatcher records the exams dispatched, by room.
type recordingDispatcher struct {
	mu   sync.Mutex
	sent map[string]string
}

func (d *recordingDispatcher) Ensure(_ context.Context, room, md string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sent == nil {
		d.sent = map[string]string{}
	}
	d.sent[room] = md
	return nil
}

func (d *recordingDispatcher) exams() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, md := range d.sent {
		out = append(out, md)
	}
	return out
}

type tieWorld struct {
	x    *LTILauncher
	disp *recordingDispatcher
	now  time.Time
}

func newTieWorld(t *testing.T, st *sessions.Store) *tieWorld {
	tw := &tieWorld{disp: &recordingDispatcher{}, now: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)}
	tw.x = &LTILauncher{Store: st, Logger: slog.New(slog.DiscardHandler), Dispatcher: tw.disp, Origin: tieOrigin,
		Catalog:  staticCatalog{{ID: "hotel-breakfast", Title: "Hotel breakfast", Language: "en"}, {ID: "oral-fr-b2", Title: "Oral B2", Language: "fr"}},
		Metadata: func(exam, _, _ string) (string, error) { return exam, nil },
		Now:      func() time.Time { return tw.now }}
	return tw
}

func tieLaunch(role, sub, link string, custom map[string]string) *lti.Launch {
	return &lti.Launch{Platform: lti.Platform{Issuer: "https://lms.example.edu", ClientID: "c1"}, DeploymentID: "d1",
		MessageType: lti.MessageResourceLink, Subject: sub, Name: sub, Roles: []string{role},
		ResourceLink: lti.ResourceLink{ID: link}, Context: lti.Context{ID: "course-1", Title: "Course"}, Custom: custom}
}

var tokenField = regexp.MustCompile(`name="token" value="([^"]+)"`)

// instructorPage launches an instructor on link and returns the page and its picker token ("" for none).
func (tw *tieWorld) instructorPage(t *testing.T, link string) (*httptest.ResponseRecorder, string) {
	t.Helper()
	w := httptest.NewRecorder()
	tw.x.Instructor(w, httptest.NewRequest(http.MethodPost, "/lti/launch", nil), tieLaunch(lti.RoleInstructor, "teacher-1", link, nil))
	m := tokenField.FindStringSubmatch(w.Body.String())
	if m == nil {
		return w, ""
	}
	return w, m[1]
}

// post submits the picker as a browser on origin would.
func (tw *tieWorld) post(token, exam, origin, fetchSite string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, PathTie, strings.NewReader(url.Values{"token": {token}, "exam": {exam}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	if fetchSite != "" {
		r.Header.Set("Sec-Fetch-Site", fetchSite)
	}
	w := httptest.NewRecorder()
	tw.x.Tie(w, r)
	return w
}

func (tw *tieWorld) learner(t *testing.T, link string, custom map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	tw.x.Learner(w, httptest.NewRequest(http.MethodPost, "/lti/launch", nil), tieLaunch(lti.RoleLearner, "learner-1", link, custom))
	return w
}

// TestLTITiePicker: an instructor's launch of an untied link shows a picker posting to this
// server; its token ties the link once; learners then start that exam (a link's own custom exam
// still wins), and the tie outlives the server's memory (a new launcher on the same store).
func TestLTITiePicker(t *testing.T) {
	pgtest.EachEngine(t, func(t *testing.T, target string) {
		ctx := context.Background()
		st, err := sessions.OpenURL(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		tw := newTieWorld(t, st)
		if w := tw.learner(t, "rl-untied", nil); w.Code != http.StatusNotFound || len(tw.disp.exams()) != 0 {
			t.Fatalf("a learner on an untied link: %d %q, dispatched %v", w.Code, w.Body, tw.disp.exams())
		}
		page, tok := tw.instructorPage(t, "rl-untied")
		csp := page.Header().Get("Content-Security-Policy")
		if tok == "" || !strings.Contains(page.Body.String(), `action="/lti/tie"`) || !strings.Contains(csp, "form-action 'self'") ||
			page.Header().Get("Referrer-Policy") != "same-origin" {
			t.Fatalf("instructor page (CSP %q):\n%s", csp, page.Body)
		}
		if w := tw.post(tok, "oral-fr-b2", tieOrigin, "same-origin"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "This link now runs Oral B2") {
			t.Fatalf("tie: %d %s", w.Code, w.Body)
		}
		if w := tw.post(tok, "hotel-breakfast", tieOrigin, "same-origin"); w.Code != http.StatusForbidden {
			t.Fatalf("a replayed token: %d %s", w.Code, w.Body)
		}
		if got, err := st.LTILinkExam(ctx, sessions.LTILink{Issuer: "https://lms.example.edu", DeploymentID: "d1", ResourceLink: "rl-other"}); !errors.Is(err, sessions.ErrNoLTILink) {
			t.Fatalf("another link got tied: %q %v", got, err)
		}
		// A new launcher: no memory of the picker, only the store.
		tw2 := newTieWorld(t, st)
		if w := tw2.learner(t, "rl-untied", nil); w.Code != http.StatusSeeOther || !strings.Contains(w.Header().Get("Location"), "lang=fr") ||
			len(tw2.disp.exams()) != 1 || tw2.disp.exams()[0] != "oral-fr-b2" {
			t.Fatalf("a learner on the tied link: %d %s, dispatched %v", w.Code, w.Header().Get("Location"), tw2.disp.exams())
		}
		if page, tok := tw2.instructorPage(t, "rl-untied"); tok != "" || !strings.Contains(page.Body.String(), "This link runs the exam <code>oral-fr-b2</code>") {
			t.Fatalf("the instructor page of a tied link:\n%s", page.Body)
		}
		// The link's own custom exam wins over the tie.
		tw3 := newTieWorld(t, st)
		if w := tw3.learner(t, "rl-untied", map[string]string{"exam": "hotel-breakfast"}); w.Code != http.StatusSeeOther ||
			len(tw3.disp.exams()) != 1 || tw3.disp.exams()[0] != "hotel-breakfast" {
			t.Fatalf("custom exam on a tied link: %d, dispatched %v", w.Code, tw3.disp.exams())
		}
	})
}

// TestLTITieRefusals: a picker post is refused, and nothing tied, for a forged, expired or
// learner's token, a post from another site or without an Origin, and an exam the server lacks.
func TestLTITieRefusals(t *testing.T) {
	ctx := context.Background()
	st, err := sessions.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, c := range []struct {
		name                    string
		token                   func(tw *tieWorld) string
		exam, origin, fetchSite string
		advance                 time.Duration
		want                    int
	}{
		{name: "forged token", token: func(*tieWorld) string { return "bm90LWlzc3VlZC1ieS10aGlzLXNlcnZlcg" }, want: http.StatusForbidden},
		{name: "empty token", token: func(*tieWorld) string { return "" }, want: http.StatusForbidden},
		{name: "expired token", advance: tieTokenTTL, want: http.StatusForbidden},
		{name: "learner's token", token: func(tw *tieWorld) string {
			tok, _ := tw.x.ties.issue(tieLaunch(lti.RoleLearner, "learner-1", "rl-x", nil), tw.now)
			return tok
		}, want: http.StatusForbidden},
		{name: "another site's page", origin: "https://evil.example", want: http.StatusForbidden},
		{name: "no Origin", origin: "-", want: http.StatusForbidden},
		{name: "cross-site fetch", fetchSite: "cross-site", want: http.StatusForbidden},
		{name: "unknown exam", exam: "no-such-exam", want: http.StatusBadRequest},
		{name: "the picker as sent", want: http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			tw := newTieWorld(t, st)
			link := "rl-" + strings.ReplaceAll(c.name, " ", "-")
			_, tok := tw.instructorPage(t, link)
			if tok == "" {
				t.Fatal("no picker")
			}
			if c.token != nil {
				tok = c.token(tw)
			}
			exam, origin, site := "hotel-breakfast", tieOrigin, "same-origin"
			if c.exam != "" {
				exam = c.exam
			}
			if c.origin == "-" {
				origin = ""
			} else if c.origin != "" {
				origin = c.origin
			}
			if c.fetchSite != "" {
				site = c.fetchSite
			}
			tw.now = tw.now.Add(c.advance)
			w := tw.post(tok, exam, origin, site)
			if w.Code != c.want {
				t.Fatalf("%d %s, want %d", w.Code, w.Body, c.want)
			}
			got, err := st.LTILinkExam(ctx, sessions.LTILink{Issuer: "https://lms.example.edu", DeploymentID: "d1", ResourceLink: link})
			if tied := err == nil; tied != (c.want == http.StatusOK) || tied && got != exam {
				t.Fatalf("after the post the link runs %q (%v)", got, err)
			}
		})
	}
}
