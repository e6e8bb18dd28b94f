package candidate

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"html/template"
	"net/http"
	"sync"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/sessions"
)

// PathTie is where the instructor page's exam picker posts: it ties a course link that names
// no exam to the exam the instructor chose.
const PathTie = "/lti/tie"

const (
	// tieTokenTTL is how long an instructor page's picker stays usable.
	tieTokenTTL = 15 * time.Minute
	// maxTieTokens bounds the pickers open at once (each instructor launch of an untied link
	// opens one).
	maxTieTokens = 4096
	// maxTieForm bounds the picker's form body.
	maxTieForm = 4 << 10
)

// Why a picker's post is refused (each answered with its own status).
var (
	ErrTieToken     = errors.New("this exam picker was already used, never issued, or has expired")
	ErrTieOrigin    = errors.New("the exam picker was not posted from this server's page")
	ErrTieRole      = errors.New("only an instructor ties a course link to an exam")
	ErrTieFull      = errors.New("too many exam pickers are open")
	ErrTieUnknownEx = errors.New("this server has no such exam")
)

// tieGrant is what one picker's token allows: tying one link, for the instructor whose
// launch showed the picker, until it expires.
type tieGrant struct {
	link       sessions.LTILink
	instructor bool
	who        string   // the instructor's candidate-style id, for the log
	frames     []string // the launching platform's course-page origins (the answer's frame-ancestors)
	expires    time.Time
}

// tieTokens are the open pickers, by the SHA-256 of their token (the token itself is only in
// the instructor's page). A token is taken once: a replay finds nothing.
type tieTokens struct {
	mu   sync.Mutex
	open map[string]tieGrant
}

func tokenKey(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}

// issue opens a picker for l's link and returns its token.
func (tt *tieTokens) issue(l *lti.Launch, now time.Time) (string, error) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.open == nil {
		tt.open = map[string]tieGrant{}
	}
	for k, g := range tt.open {
		if !now.Before(g.expires) {
			delete(tt.open, k)
		}
	}
	if len(tt.open) >= maxTieTokens {
		return "", ErrTieFull
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	tok := base64.RawURLEncoding.EncodeToString(b)
	tt.open[tokenKey(tok)] = tieGrant{link: linkOf(l), instructor: l.IsInstructor(),
		who: CandidateID(l.Platform.Issuer, l.Subject), frames: l.Platform.CoursePageOrigins(), expires: now.Add(tieTokenTTL)}
	return tok, nil
}

// take uses tok up: it answers the grant once, and only before it expires.
func (tt *tieTokens) take(tok string, now time.Time) (tieGrant, error) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	k := tokenKey(tok)
	g, ok := tt.open[k]
	delete(tt.open, k)
	if !ok || tok == "" || !now.Before(g.expires) {
		return tieGrant{}, ErrTieToken
	}
	return g, nil
}

// linkOf is the course link l launched from.
func linkOf(l *lti.Launch) sessions.LTILink {
	return sessions.LTILink{Issuer: l.Platform.Issuer, DeploymentID: l.DeploymentID, ResourceLink: l.ResourceLink.ID}
}

// Tie answers the instructor page's picker: with a token that page carried (same origin,
// unused, unexpired, from an instructor's launch) it ties the token's link to the chosen exam,
// which every learner's launch of the link then starts (unless the link names its own).
func (x *LTILauncher) Tie(w http.ResponseWriter, r *http.Request) {
	if !lti.SameOrigin(r, x.Origin) {
		x.fail(w, http.StatusForbidden, "refused: "+ErrTieOrigin.Error(), ErrTieOrigin)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTieForm)
	if err := r.ParseForm(); err != nil {
		x.fail(w, http.StatusBadRequest, "refused: the form could not be read", err)
		return
	}
	now := x.Now()
	g, err := x.ties.take(r.PostForm.Get("token"), now)
	if err != nil {
		x.fail(w, http.StatusForbidden, "refused: "+err.Error()+"; launch the link again from the course", err)
		return
	}
	if !g.instructor {
		x.fail(w, http.StatusForbidden, "refused: "+ErrTieRole.Error(), ErrTieRole)
		return
	}
	exam := r.PostForm.Get("exam")
	placed, err := x.catalogExam(exam)
	if err != nil {
		x.fail(w, http.StatusBadRequest, "refused: "+ErrTieUnknownEx.Error()+"; launch the link again and choose one it lists", err)
		return
	}
	if err := x.Store.TieLTILink(r.Context(), g.link, exam, now); err != nil {
		if errors.Is(err, sessions.ErrLinkTied) {
			x.fail(w, http.StatusConflict, "refused: "+err.Error(), err)
			return
		}
		x.fail(w, http.StatusInternalServerError, "the choice could not be stored; launch the link again", err)
		return
	}
	x.Logger.Info("lti link tied", "issuer", g.link.Issuer, "deployment", g.link.DeploymentID, "resourceLink", g.link.ResourceLink,
		"exam", exam, "by", g.who)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; base-uri 'none'; form-action 'none'; "+frameAncestors(g.frames))
	h.Set("Referrer-Policy", "no-referrer")
	_ = tiedPage.Execute(w, placed)
}

// catalogExam is the catalog's exam id, or ErrTieUnknownEx.
func (x *LTILauncher) catalogExam(id string) (lti.CatalogExam, error) {
	exams, err := x.Catalog.Exams()
	if err != nil {
		return lti.CatalogExam{}, err
	}
	for _, e := range exams {
		if e.ID == id && id != "" {
			return e, nil
		}
	}
	return lti.CatalogExam{}, ErrTieUnknownEx
}

var tiedPage = template.Must(template.New("tied").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Exam chosen</title></head>
<body><main><h1>This link now runs {{.Title}}</h1>
<p id="tied">Learners who open this link start <strong>{{.Title}}</strong> (<code>{{.ID}}</code>). Open the link again to see how their exams stand.</p>
</main></body></html>`))
