package candidate

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"sync"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/examtui/examtui/spec/lang"
)

// LanguageParam is the join link's query parameter naming the exam's language (?lang=fr): the
// page is rendered in that language's pack. It decides only the words the page shows, so a
// changed or missing value costs the candidate nothing but the language.
const LanguageParam = "lang"

// pageView is what index.html is rendered with: the pack's language, its direction, its page
// strings (in the HTML and, as JSON, for the page's script) and the recording notice.
type pageView struct {
	Lang   string
	Dir    string
	T      map[string]string
	Notice string
}

// renderedPage is index.html in one language: as it is, and in each content-coding of encodings.
type renderedPage struct {
	raw     []byte
	encoded map[string][]byte
}

// pages renders index.html per language once and keeps each rendering (a few KB, one per pack).
type pages struct {
	fsys   fs.FS
	notice string // the configured notice; "" is the pack's

	parse   sync.Once
	tmpl    *template.Template
	errTmpl error

	mu   sync.Mutex
	done map[string]*renderedPage
}

func newPages(fsys fs.FS, notice string) *pages {
	return &pages{fsys: fsys, notice: notice, done: map[string]*renderedPage{}}
}

// render returns index.html in p's language: the strings in the HTML (no request before Join
// waits for them), <html lang dir> from the pack, the strings the script needs as JSON.
func (ps *pages) render(p *lang.Pack) (*renderedPage, error) {
	ps.parse.Do(func() {
		ps.tmpl, ps.errTmpl = template.New("index.html").Option("missingkey=error").ParseFS(ps.fsys, "index.html")
	})
	if ps.errTmpl != nil {
		return nil, fmt.Errorf("candidate page: %w", ps.errTmpl)
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if r, ok := ps.done[p.Language]; ok {
		return r, nil
	}
	notice := ps.notice
	if notice == "" {
		notice = p.Page["noticeText"]
	}
	var raw bytes.Buffer
	view := pageView{Lang: p.Language, Dir: direction(p), T: p.Page, Notice: notice}
	if err := ps.tmpl.Execute(&raw, view); err != nil {
		return nil, fmt.Errorf("candidate page in %s: %w", p.Language, err)
	}
	r := &renderedPage{raw: raw.Bytes(), encoded: map[string][]byte{}}
	for _, e := range encodings {
		b, err := compress(e.token, r.raw)
		if err != nil {
			return nil, fmt.Errorf("candidate page in %s: %w", p.Language, err)
		}
		r.encoded[e.token] = b
	}
	ps.done[p.Language] = r
	return r, nil
}

// compress encodes b in a content-coding of encodings, at its strongest setting (once per
// language).
func compress(token string, b []byte) ([]byte, error) {
	var out bytes.Buffer
	var w io.WriteCloser
	switch token {
	case "br":
		w = brotli.NewWriterLevel(&out, brotli.BestCompression)
	case "gzip":
		w, _ = gzip.NewWriterLevel(&out, gzip.BestCompression) // a valid level: no error
	default:
		return nil, fmt.Errorf("no encoder for %q", token)
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func direction(p *lang.Pack) string {
	if p.RTL() {
		return lang.RTL.String()
	}
	return lang.LTR.String()
}

// pageLanguage is the pack a join link's page is shown in: its ?lang= (the exam's language,
// put there by whoever made the link), else the server's default language; an unknown tag
// falls to the default too.
func (s *Server) pageLanguage(r *http.Request) *lang.Pack {
	if tag := r.URL.Query().Get(LanguageParam); tag != "" {
		if p, err := s.cfg.Languages.Lookup(tag); err == nil {
			return p
		}
	}
	return s.lang
}

// servePage sends index.html rendered in the request's language, never stored, compressed as
// the browser accepts.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	p := s.pageLanguage(r)
	page, err := s.pages.render(p)
	if err != nil {
		s.setPageHeaders(w.Header())
		s.log.Error("candidate page: render", "language", p.Language, "err", err)
		http.Error(w, "the page could not be read", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	s.setPageHeaders(h)
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Type", contentTypes[".html"])
	h.Set("Content-Language", p.Language)
	body := page.raw
	accept := r.Header.Get("Accept-Encoding")
	for _, e := range encodings {
		if acceptable(accept, e.token) {
			body = page.encoded[e.token]
			h.Set("Content-Encoding", e.token)
			break
		}
	}
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(body))
}
