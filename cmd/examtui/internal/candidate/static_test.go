package candidate

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/examtui/examtui/internal/httpserve"
)

// staticPage writes a page as the build leaves it: content-hashed assets, each with its .br and
// .gz forms (the .br bytes only marked as such: the server sends them as they are), an asset
// without a hash (a page built by hand), and the favicon.
func staticPage(t testing.TB) (dir string, files map[string]string) {
	t.Helper()
	dir = t.TempDir()
	files = map[string]string{
		"index.html":               "<!doctype html><title>join</title><script type=module src=/assets/page-ABCDEFG2.js></script>",
		"assets/page-ABCDEFG2.js":  "console.log('page')",
		"assets/page-QRSTUVW7.css": "body{color:#111}",
		"assets/plain.js":          "console.log('plain')",
		"favicon.svg":              "<svg xmlns='http://www.w3.org/2000/svg'/>",
	}
	for _, sub := range []string{"assets/sub", "assets/dir-ABCDEFG2.js"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range files {
		write(name, []byte(body))
		if name == "assets/plain.js" {
			continue
		}
		write(name+".br", []byte("br:"+body))
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		_, _ = zw.Write([]byte(body))
		_ = zw.Close()
		write(name+".gz", gz.Bytes())
	}
	return dir, files
}

// TestStaticFiles: the page's files are sent as a static site (the HTML rendered by the server
// in the link's language, compressed by it once per language): a content-hashed asset is
// immutable for a year, the HTML and anything else never stored; the pre-compressed form the
// request accepts is sent with its Content-Encoding (br before gzip), the file itself otherwise,
// and every answer varies on Accept-Encoding. A miss is never cached, and the compressed forms
// are not files of their own.
func TestStaticFiles(t *testing.T) {
	dir, files := staticPage(t)
	f := newFixture(t, t.TempDir(), dir)
	code := f.code(t, Invite{Room: "r", Identity: "ada"})
	const js = "/assets/page-ABCDEFG2.js"
	cases := []struct {
		path, accept string
		status       int
		encoding     string // "" for the file as it is
		cache        string
		file         string // the page's file whose bytes are expected
	}{
		{js, "gzip, deflate, br, zstd", 200, "br", cacheImmutable, "assets/page-ABCDEFG2.js"},
		{js, "gzip", 200, "gzip", cacheImmutable, "assets/page-ABCDEFG2.js"},
		{js, "br;q=0, gzip;q=0.5", 200, "gzip", cacheImmutable, "assets/page-ABCDEFG2.js"},
		{js, "BR;Q=1", 200, "br", cacheImmutable, "assets/page-ABCDEFG2.js"},
		{js, "*", 200, "br", cacheImmutable, "assets/page-ABCDEFG2.js"},
		{js, "br;q=0, *;q=0.3", 200, "gzip", cacheImmutable, "assets/page-ABCDEFG2.js"},
		{js, "*;q=0", 200, "", cacheImmutable, "assets/page-ABCDEFG2.js"},
		{js, "", 200, "", cacheImmutable, "assets/page-ABCDEFG2.js"},
		{js, "identity", 200, "", cacheImmutable, "assets/page-ABCDEFG2.js"},
		{js, "br;q=bogus, gzip", 200, "gzip", cacheImmutable, "assets/page-ABCDEFG2.js"},
		{"/assets/page-QRSTUVW7.css", "br", 200, "br", cacheImmutable, "assets/page-QRSTUVW7.css"},
		{"/assets/plain.js", "br, gzip", 200, "", cacheNever, "assets/plain.js"},
		{"/join/" + code, "br, gzip", 200, "br", cacheNever, "index.html"},
		{"/join/" + code, "gzip", 200, "gzip", cacheNever, "index.html"},
		{"/join/" + code, "", 200, "", cacheNever, "index.html"},
		{"/favicon.ico", "gzip", 200, "gzip", cacheFavicon, "favicon.svg"},
		{js + ".br", "br", 404, "", cacheNever, ""},
		{js + ".gz", "", 404, "", cacheNever, ""},
		{"/assets/gone-ABCDEFG2.js", "br", 404, "", cacheNever, ""},
		{"/assets/dir-ABCDEFG2.js", "", 404, "", cacheNever, ""},
		{"/assets/sub", "", 404, "", cacheNever, ""},
		{"/assets/", "", 404, "", cacheNever, ""},
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.accept, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, f.srv.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Accept-Encoding", tc.accept)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			h := resp.Header
			if resp.StatusCode != tc.status || h.Get("Cache-Control") != tc.cache {
				t.Fatalf("%d, Cache-Control %q; want %d, %q", resp.StatusCode, h.Get("Cache-Control"), tc.status, tc.cache)
			}
			if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" || h.Get("Content-Security-Policy") == "" {
				t.Errorf("headers %v", h)
			}
			if tc.status != 200 {
				return
			}
			if h.Get("Content-Encoding") != tc.encoding || h.Get("Vary") != "Accept-Encoding" {
				t.Errorf("Content-Encoding %q, Vary %q; want %q, Accept-Encoding", h.Get("Content-Encoding"), h.Get("Vary"), tc.encoding)
			}
			got := string(body)
			switch tc.encoding {
			case "br":
				got = strings.TrimPrefix(got, "br:")
				if tc.file == "index.html" { // rendered and compressed by the server itself
					b, err := io.ReadAll(brotli.NewReader(bytes.NewReader(body)))
					if err != nil {
						t.Fatal(err)
					}
					got = string(b)
				}
			case "gzip":
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(zr)
				if err != nil {
					t.Fatal(err)
				}
				got = string(b)
			}
			if got != files[tc.file] {
				t.Errorf("body %q, want %s: %q", got, tc.file, files[tc.file])
			}
		})
	}
}

// FuzzAcceptable: whatever a browser or proxy sends as Accept-Encoding, a content-coding is
// chosen only when the header names it or "*", and never when it is refused alone with q=0.
func FuzzAcceptable(f *testing.F) {
	for _, s := range []string{"gzip, deflate, br", "br;q=0", "*", "*;q=0, gzip", "br;q=1.5", "gzip;q=", ";;,,", "br ; q = 0.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		for _, token := range []string{"br", "gzip"} {
			if acceptable(header, token) && !strings.Contains(strings.ToLower(header), token) && !strings.Contains(header, "*") {
				t.Fatalf("%q accepted from %q", token, header)
			}
			if acceptable(token+";q=0", token) || !acceptable(header+","+token, token) && !strings.Contains(strings.ToLower(header), token) {
				t.Fatalf("%q with %q: an explicit q=0 must refuse, a bare listing accept", token, header)
			}
		}
	})
}

// TestTLSOffersHTTP2: over TLS as examtui serve sets it up (TLSConfig), a browser that speaks
// HTTP/2 gets it, so the page's files come over one connection; HTTP/1.1 still works.
func TestTLSOffersHTTP2(t *testing.T) {
	dir, _ := staticPage(t)
	f := newFixture(t, t.TempDir(), dir)
	// httptest's certificate for 127.0.0.1, and a client that trusts it.
	certSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer certSrv.Close()
	roots := certSrv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	srv, err := New(Config{Store: f.st, LiveKitURL: testLK, APIKey: testKey, APISecret: testSecret, Page: os.DirFS(dir)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, httpserve.WithTLS(TLSConfig(certSrv.TLS.Certificates...))) }() // as examtui serve does: TLS after the connection caps
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	for _, tc := range []struct {
		h2    bool
		proto string
	}{{true, "HTTP/2.0"}, {false, "HTTP/1.1"}} {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: tc.h2}
		resp, err := (&http.Client{Transport: tr}).Get("https://" + ln.Addr().String() + "/assets/page-ABCDEFG2.js")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		tr.CloseIdleConnections()
		if resp.StatusCode != http.StatusOK || resp.Proto != tc.proto {
			t.Errorf("h2 %v: %d over %s, want 200 over %s", tc.h2, resp.StatusCode, resp.Proto, tc.proto)
		}
	}
}
