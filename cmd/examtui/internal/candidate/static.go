package candidate

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Cache-Control of the page's files. A content-hashed asset never changes under its name, so a
// browser keeps it for a year without asking again; anything else (the HTML, which names the
// assets of this build and must not outlive a join code in a shared browser; a miss) is never
// stored.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheFavicon   = "public, max-age=86400"
	cacheNever     = "no-store"
)

// hashedName matches the names the page's build gives its assets: NAME-HASH.EXT, the hash
// esbuild's (8 characters of base32). Only such a name is cached as immutable.
var hashedName = regexp.MustCompile(`^[A-Za-z0-9_.]+-[A-Z2-7]{8}\.[a-z0-9.]+$`)

// encodings are the pre-compressed forms the build writes beside a file (NAME.br, NAME.gz),
// in the server's order of preference.
var encodings = []struct{ token, suffix string }{{"br", ".br"}, {"gzip", ".gz"}}

// contentTypes of the page's files, fixed here rather than taken from the machine's MIME table.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".txt":  "text/plain; charset=utf-8",
}

// acceptable reports whether an Accept-Encoding header value allows the content-coding token
// (RFC 9110 §12.5.3): listed, or covered by "*", with a q-value above 0. Malformed entries count
// as absent.
func acceptable(header, token string) bool {
	star, named := -1.0, -1.0
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		q := 1.0
		if params != "" {
			k, v, ok := strings.Cut(strings.TrimSpace(params), "=")
			if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
				continue
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || f < 0 || f > 1 {
				continue
			}
			q = f
		}
		switch name {
		case token:
			named = max(named, q)
		case "*":
			star = max(star, q)
		}
	}
	if named >= 0 {
		return named > 0
	}
	return star > 0
}

// serveFile sends the page's file name (a path in cfg.Page) with cacheControl, pre-compressed
// when the build made a form the request accepts. The response varies on Accept-Encoding
// whatever it chooses. A directory, a missing file or a request for a compressed form by its
// own name is a 404, never cached.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, name, cacheControl string) {
	h := w.Header()
	s.setPageHeaders(h)
	h.Add("Vary", "Accept-Encoding")
	ctype, known := contentTypes[path.Ext(name)]
	if !known || !fs.ValidPath(name) {
		http.NotFound(w, r)
		return
	}
	f, encoding, err := s.openEncoded(name, r.Header.Get("Accept-Encoding"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			http.NotFound(w, r)
			return
		}
		s.log.Error("candidate page: open a file", "file", name, "err", err)
		http.Error(w, "the page could not be read", http.StatusInternalServerError)
		return
	}
	defer f.Close()
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		s.log.Error("candidate page: a file cannot seek", "file", name)
		http.Error(w, "the page could not be read", http.StatusInternalServerError)
		return
	}
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", cacheControl)
	if encoding != "" {
		h.Set("Content-Encoding", encoding)
	}
	// No modification time: an asset's name is its version, and the HTML is never stored.
	http.ServeContent(w, r, name, time.Time{}, rs)
}

// openEncoded opens the best form of name the request accepts: a pre-compressed one (its
// content-coding returned) or the file itself ("").
func (s *Server) openEncoded(name, accept string) (fs.File, string, error) {
	for _, e := range encodings {
		if !acceptable(accept, e.token) {
			continue
		}
		if f, err := s.cfg.Page.Open(name + e.suffix); err == nil {
			return f, e.token, nil
		}
	}
	f, err := s.cfg.Page.Open(name)
	if err != nil {
		return nil, "", err
	}
	if st, err := f.Stat(); err != nil || st.IsDir() {
		f.Close()
		return nil, "", fs.ErrNotExist
	}
	return f, "", nil
}

// asset serves GET /assets/{name}: immutable when the name is content-hashed, never stored
// otherwise (a page built by hand).
func (s *Server) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	cc := cacheNever
	if hashedName.MatchString(name) {
		cc = cacheImmutable
	}
	s.serveFile(w, r, "assets/"+name, cc)
}

// favicon serves GET /favicon.ico (the page names its icon; this is for what asks without
// reading the page): the same picture, kept a day.
func (s *Server) favicon(w http.ResponseWriter, r *http.Request) {
	s.serveFile(w, r, "favicon.svg", cacheFavicon)
}
