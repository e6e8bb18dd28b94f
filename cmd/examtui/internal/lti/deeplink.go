package lti

import (
	"fmt"
	"html/template"
	"net/http"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// LineItem is the gradebook column a placed exam creates.
type LineItem struct {
	ScoreMaximum float64 `json:"scoreMaximum"`
	Label        string  `json:"label"`
	ResourceID   string  `json:"resourceId,omitempty"`
	Tag          string  `json:"tag,omitempty"`
}

// resourceLinkItem is a Deep Linking content item of type ltiResourceLink.
type resourceLinkItem struct {
	Type     string            `json:"type"`
	Title    string            `json:"title"`
	URL      string            `json:"url"`
	Custom   map[string]string `json:"custom,omitempty"`
	LineItem *LineItem         `json:"lineItem,omitempty"`
}

// deepLinkWait is a Deep Linking request whose instructor is choosing an exam.
type deepLinkWait struct {
	launch  *Launch
	expires time.Time
}

// deepLinks keeps the pickers open, by a random token the picker's form carries back.
type deepLinks struct {
	now  func() time.Time
	mu   sync.Mutex
	open map[string]deepLinkWait
}

func (d *deepLinks) add(l *Launch) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	for k, w := range d.open {
		if now.After(w.expires) {
			delete(d.open, k)
		}
	}
	if len(d.open) >= maxStates {
		return "", false
	}
	tok := randomToken()
	d.open[tok] = deepLinkWait{launch: l, expires: now.Add(stateTTL)}
	return tok, true
}

func (d *deepLinks) take(tok string) (*Launch, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	w, ok := d.open[tok]
	delete(d.open, tok)
	if !ok || d.now().After(w.expires) {
		return nil, false
	}
	return w.launch, true
}

var pickerPage = template.Must(template.New("picker").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Place an oral exam</title></head>
<body><main><h1>Place an oral exam in {{.Course}}</h1>
{{if .Exams}}<form method="post" action="/lti/deeplink"><input type="hidden" name="dl" value="{{.Token}}">
<fieldset><legend>Exam</legend>
{{range $i, $e := .Exams}}<p><label><input type="radio" name="exam" value="{{$e.ID}}"{{if eq $i 0}} checked{{end}}> {{$e.Title}} <small>({{$e.ID}}{{if $e.ScoreMaximum}}, {{$e.ScoreMaximum}} marks{{end}})</small></label></p>
{{end}}</fieldset><p><button type="submit">Place this exam</button></p></form>
{{else}}<p>No exam is available to place: add exam specs to the server's --specs directory.</p>{{end}}
</main></body></html>`))

// picker shows an instructor's Deep Linking request the exams to choose from.
func (t *Tool) picker(w http.ResponseWriter, _ *http.Request, l *Launch) {
	exams, err := t.cfg.Catalog.Exams()
	if err != nil {
		t.refuse(w, http.StatusInternalServerError, fmt.Errorf("%w: the exam catalog: %w", ErrService, err))
		return
	}
	tok, ok := t.links.add(l)
	if !ok {
		w.Header().Set("Retry-After", "10")
		t.refuse(w, http.StatusServiceUnavailable, fmt.Errorf("%w: too many pickers open", ErrState))
		return
	}
	course := l.Context.Title
	if course == "" {
		course = "this course"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// same-origin: the choice's POST carries the tool's Origin (pick checks it); nothing leaks
	// to other sites.
	w.Header().Set("Referrer-Policy", "same-origin")
	_ = pickerPage.Execute(w, map[string]any{"Course": course, "Exams": exams, "Token": tok})
}

var returnPage = template.Must(template.New("return").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Returning to the course</title></head>
<body onload="document.forms[0].submit()"><form method="post" action="{{.URL}}">
<input type="hidden" name="JWT" value="{{.JWT}}"><noscript><button type="submit">Return to the course</button></noscript>
</form></body></html>`))

// pick takes the instructor's choice and sends the signed Deep Linking response back to the
// platform through the browser.
func (t *Tool) pick(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	// Checked before the token is taken: a post another site makes the instructor's browser
	// send neither places an exam nor uses up the picker.
	if !t.sameOrigin(r) {
		t.refuse(w, http.StatusForbidden, fmt.Errorf("%w: the exam picker's choice must come from the tool's own page (Origin %q)", ErrState, r.Header.Get("Origin")))
		return
	}
	if err := r.ParseForm(); err != nil {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: %w", ErrMessage, err))
		return
	}
	l, ok := t.links.take(r.PostForm.Get("dl"))
	if !ok {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: unknown or expired exam picker; open it again from the course", ErrState))
		return
	}
	exams, err := t.cfg.Catalog.Exams()
	if err != nil {
		t.refuse(w, http.StatusInternalServerError, fmt.Errorf("%w: the exam catalog: %w", ErrService, err))
		return
	}
	var chosen *CatalogExam
	for i := range exams {
		if exams[i].ID == r.PostForm.Get("exam") {
			chosen = &exams[i]
		}
	}
	if chosen == nil {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: exam %q is not in the catalog", ErrMessage, r.PostForm.Get("exam")))
		return
	}
	jwtStr, err := t.DeepLinkResponse(l, *chosen)
	if err != nil {
		t.refuse(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = returnPage.Execute(w, map[string]any{"URL": template.URL(l.DeepLink.ReturnURL), "JWT": jwtStr})
}

// DeepLinkResponse signs the Deep Linking response that places exam for l's platform: one
// ltiResourceLink to the tool's launch URL, carrying the exam in its custom parameters, with a
// line item whose scoreMaximum is the marking scheme's.
func (t *Tool) DeepLinkResponse(l *Launch, exam CatalogExam) (string, error) {
	item := resourceLinkItem{Type: "ltiResourceLink", Title: exam.Title, URL: t.LaunchURL(),
		Custom: map[string]string{"exam": exam.ID}}
	if exam.ScoreMaximum > 0 {
		item.LineItem = &LineItem{ScoreMaximum: exam.ScoreMaximum, Label: exam.Title, ResourceID: exam.ID, Tag: "examtui"}
	}
	now := t.cfg.Now()
	claims := jwt.MapClaims{
		"iss": l.Platform.ClientID, "aud": l.Platform.Issuer, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"nonce": randomToken(), claimDeploymentID: l.DeploymentID, claimMessageType: messageDLResponse,
		claimVersion: ltiVersion, claimContentItems: []resourceLinkItem{item},
	}
	if l.DeepLink.Data != "" {
		claims[claimDeepLinkData] = l.DeepLink.Data
	}
	return t.cfg.Keys.Sign(claims)
}
