package candidate

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec/lang"
)

// pageSource is the page's source directory: its index.html is the template the build copies
// into dist with only the assets' names changed.
const pageSource = "web/src"

// getPage fetches the page of a join link (path and query) as a browser without compression.
func getPage(t *testing.T, base, pathQuery string) (string, http.Header) {
	t.Helper()
	resp, err := http.Get(base + pathQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", pathQuery, resp.StatusCode, b)
	}
	return string(b), resp.Header
}

var (
	htmlTag     = regexp.MustCompile(`<html lang="([^"]*)" dir="([^"]*)">`)
	jsonStrings = regexp.MustCompile(`(?s)<script type="application/json" id="page-strings">(.*?)</script>`)
)

// TestPageInTheLinksLanguage: the page of a link with ?lang= is the HTML in that language's
// pack: <html lang dir>, every string of the HTML and, as JSON, the strings the script says; a
// regional tag takes its base language's pack; a tag without a pack, or garbage, gets the
// server's default language. The HTML stays no-store.
func TestPageInTheLinksLanguage(t *testing.T) {
	f := newFixture(t, t.TempDir(), pageSource)
	code := f.code(t, Invite{Room: "r", Identity: "ada"})
	for _, tc := range []struct{ query, lang, dir string }{
		{"?lang=en", "en", "ltr"}, {"?lang=fr", "fr", "ltr"}, {"?lang=de", "de", "ltr"}, {"?lang=es", "es", "ltr"},
		{"?lang=ar", "ar", "rtl"}, {"?lang=ar-EG", "ar", "rtl"}, {"?lang=FR_ca", "fr", "ltr"},
		{"", "en", "ltr"}, {"?lang=pl", "en", "ltr"}, {`?lang="><script>alert(1)</script>`, "en", "ltr"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			body, h := getPage(t, f.srv.URL, "/join/"+code+tc.query)
			if h.Get("Cache-Control") != cacheNever || h.Get("Content-Language") != tc.lang {
				t.Errorf("Cache-Control %q, Content-Language %q; want %s, %s", h.Get("Cache-Control"), h.Get("Content-Language"), cacheNever, tc.lang)
			}
			m := htmlTag.FindStringSubmatch(body)
			if m == nil || m[1] != tc.lang || m[2] != tc.dir {
				t.Fatalf("html element %q, want lang %s dir %s", m, tc.lang, tc.dir)
			}
			p, err := lang.Lookup(tc.lang)
			if err != nil {
				t.Fatal(err)
			}
			checkStrings(t, body, p.Page)
			for _, k := range []string{"title", "noticeTitle", "noticeText", "noticeAck", "micTitle", "join", "joinHelp", "examTitle", "captionsTitle", "answerLabel", "send", "rejoin", "endedTitle", "endedText", "waiting"} {
				if !strings.Contains(body, html.EscapeString(p.Page[k])) {
					t.Errorf("the page lacks its %s string %q", k, p.Page[k])
				}
			}
			if strings.Contains(body, "{{") || strings.Count(body, "<script") != 2 {
				t.Errorf("the page was not rendered whole:\n%s", body)
			}
		})
	}
}

// checkStrings: the page's JSON strings are exactly the pack's.
func checkStrings(t *testing.T, body string, want map[string]string) {
	t.Helper()
	m := jsonStrings.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no page strings in\n%s", body)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(m[1]), &got); err != nil {
		t.Fatalf("page strings: %v\n%s", err, m[1])
	}
	for _, k := range lang.PageKeys {
		if got[k] != want[k] {
			t.Errorf("page string %s = %q, want %q", k, got[k], want[k])
		}
	}
}

// TestPageLanguageConfig: the server's default language and the config file's packs decide the
// page of a link without ?lang=; a default without a pack is refused when the server is made. A
// pack's string holding markup stays text: the JSON cannot close its script element.
func TestPageLanguageConfig(t *testing.T) {
	hostile := &lang.Pack{Language: "fr-CA", Page: map[string]string{
		"send": `</script><script>alert(1)</script>`, "title": `<b>Examen</b> & "oral"`}}
	packs, err := lang.Builtin().With(hostile)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, t.TempDir(), pageSource, func(c *Config) { c.Languages, c.Language = packs, "fr-CA" })
	code := f.code(t, Invite{Room: "r", Identity: "ada"})
	body, _ := getPage(t, f.srv.URL, "/join/"+code)
	if m := htmlTag.FindStringSubmatch(body); m == nil || m[1] != "fr-CA" {
		t.Fatalf("html element %q, want the default fr-CA", m)
	}
	if strings.Count(body, "<script") != 2 || strings.Contains(body, "<b>") {
		t.Errorf("markup in a pack's string reached the page as markup:\n%s", body)
	}
	p, _ := packs.Lookup("fr-CA")
	checkStrings(t, body, p.Page)
	if !strings.Contains(body, html.EscapeString(p.Page["endedTitle"])) {
		t.Errorf("the French strings under the regional pack are missing:\n%s", body)
	}

	_, err = New(Config{Store: f.st, LiveKitURL: testLK, APIKey: testKey, APISecret: testSecret, Language: "pl"})
	if !errors.Is(err, ErrInvalidConfig) || !errors.Is(err, lang.ErrNoPack) {
		t.Errorf("a default language without a pack: %v, want ErrInvalidConfig and ErrNoPack", err)
	}
}

// TestPageNotice: the recording notice is in the HTML (no request before the microphone opens):
// the configured one in every language, else the page language's pack's, which in English is
// the store's default notice.
func TestPageNotice(t *testing.T) {
	if got := lang.English().Page["noticeText"]; got != sessions.DefaultNotice {
		t.Errorf("the English pack's notice %q, want sessions.DefaultNotice %q", got, sessions.DefaultNotice)
	}
	fr, _ := lang.Lookup("fr")
	f := newFixture(t, t.TempDir(), pageSource)
	code := f.code(t, Invite{Room: "r", Identity: "ada"})
	if body, _ := getPage(t, f.srv.URL, "/join/"+code+"?lang=fr"); !strings.Contains(body, html.EscapeString(fr.Page["noticeText"])) {
		t.Errorf("the French page lacks the French notice:\n%s", body)
	}
	const own = "Cet examen est enregistré par l'université."
	g := newFixture(t, t.TempDir(), pageSource, func(c *Config) { c.Notice = own })
	code = g.code(t, Invite{Room: "r", Identity: "ada"})
	for _, q := range []string{"?lang=fr", "?lang=ar", ""} {
		if body, _ := getPage(t, g.srv.URL, "/join/"+code+q); !strings.Contains(body, html.EscapeString(own)) {
			t.Errorf("%s: the configured notice is not on the page:\n%s", q, body)
		}
	}
}

// TestLinkCarriesLanguage: a link made for an exam's language names it for the page.
func TestLinkCarriesLanguage(t *testing.T) {
	f := newFixture(t, t.TempDir(), pageSource)
	for _, tc := range []struct{ language, suffix string }{{"fr", "?lang=fr"}, {"ar-EG", "?lang=ar-EG"}, {"", ""}} {
		link, err := NewLink(context.Background(), f.st, "https://exam.example.org", Invite{Room: "r", Identity: "ada", Language: tc.language}, f.clock())
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^https://exam\.example\.org/join/[A-Za-z0-9_-]{22}` + regexp.QuoteMeta(tc.suffix) + `$`).MatchString(link) {
			t.Errorf("language %q: link %s", tc.language, link)
		}
	}
}

// TestRefusalNamesItsReason: a refused join names its reason, which the page says in its own
// language; the English text stays for other clients.
func TestRefusalNamesItsReason(t *testing.T) {
	f := newFixture(t, t.TempDir(), builtPage(t))
	code := f.code(t, Invite{Room: "r", Identity: "ada"})
	if a := postJoin(t, browser(t), f.srv.URL, codeBody(code)); a.status != http.StatusOK {
		t.Fatalf("first join: %d", a.status)
	}
	a := postJoin(t, browser(t), f.srv.URL, codeBody(code))
	if a.status != http.StatusConflict || a.body["reason"] != "used" || a.body["error"] != msgUsed {
		t.Errorf("a used link: %d %v", a.status, a.body)
	}
	for msg, reason := range refusalReasons {
		key := "refused" + strings.ToUpper(reason[:1]) + reason[1:]
		if reason != "malformed" && lang.English().Page[key] != msg {
			t.Errorf("refusal %q: the English pack's %s is %q", msg, key, lang.English().Page[key])
		}
	}
}
