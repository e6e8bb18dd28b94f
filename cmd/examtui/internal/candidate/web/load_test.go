package web_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/cmd/examtui/internal/candidate/web"
	"github.com/examtui/examtui/internal/browsertest"
)

// The page's budget on a slow link (a candidate on a phone's hotspot).
const (
	slowLatency   = 150 * time.Millisecond
	slowBandwidth = 1_600_000 // bits per second, each way
	maxFirstLoad  = 160 << 10 // bytes on the wire, livekit-client included
	maxRepeatLoad = 10 << 10  // bytes on the wire when the browser has the assets
	maxJoinUsable = 1200 * time.Millisecond
	maxPageScript = 20 << 10 // the page's own script on the wire: livekit-client comes after Join works
)

// pageServer is the real candidate server with the built page, its LiveKit URL never reached:
// the page loads without joining.
func pageServer(t testing.TB) (*httptest.Server, string) {
	t.Helper()
	if !web.Built() {
		t.Fatal("the candidate page is not built into this test binary: run make web (make test does)")
	}
	st := apptest.OpenStore(t, t.TempDir())
	srv, err := candidate.New(candidate.Config{Store: st, LiveKitURL: "ws://127.0.0.1:9", APIKey: "devkey", APISecret: "0123456789abcdef0123456789abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	// Over TLS as examtui serve sets it up, as a candidate reaches it (browsers ask for br on
	// HTTPS only; HTTP/2 when the server offers it).
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.TLS = candidate.TLSConfig()
	ts.StartTLS()
	t.Cleanup(ts.Close)
	code, err := candidate.NewCode(t.Context(), st, candidate.Invite{Room: "r", Identity: "cand-load"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return ts, ts.URL + "/join/" + code
}

// freshPage is an empty tab in a browser of its own whose audio device has started: the first
// capture starts it, hundreds of ms on a loaded machine and nothing to do with the link, so it is
// done on another origin (localhost: the page's own origin, 127.0.0.1, has no connection open).
func freshPage(t *testing.T, link string) *browsertest.Page {
	t.Helper()
	b := browsertest.Start(t, browsertest.WithIgnoreCertificateErrors())
	p := b.Blank(t)
	p.Navigate(strings.Replace(strings.Split(link, "/join/")[0], "127.0.0.1", "localhost", 1) + "/healthz")
	p.Do(`navigator.mediaDevices.getUserMedia({audio: true}).then((s) => s.getTracks().forEach((t) => t.stop()))`)
	p.Transfers()
	return p
}

// loadTimes are the page's own marks (performance.mark), in ms since the navigation started.
type loadTimes struct {
	JoinUsable float64 `json:"joinUsable"` // the Join button can be pressed (the microphone is open)
	LiveKit    float64 `json:"livekit"`    // livekit-client has loaded: Join connects at once
	// Needed is when the last of what Join needs (the HTML, the style sheet, the page's
	// script) had arrived: what the link decides, whatever else the machine is doing.
	Needed float64 `json:"needed"`
}

// load navigates p to link and waits until livekit-client is loaded; it returns the page's
// marks and the requests made.
func load(t *testing.T, p *browsertest.Page, link string) (loadTimes, []browsertest.Transfer) {
	t.Helper()
	p.Navigate(link)
	acknowledge(p) // the recording notice comes before the microphone, so before Join
	p.WaitTrue(`performance.getEntriesByName("examtui-livekit-loaded").length > 0 && performance.getEntriesByName("examtui-join-usable").length > 0`,
		30*time.Second, "the page to load livekit-client and enable Join")
	raw := browsertest.Eval[string](p, `JSON.stringify({
		joinUsable: performance.getEntriesByName("examtui-join-usable")[0].startTime,
		livekit: performance.getEntriesByName("examtui-livekit-loaded")[0].startTime,
		needed: Math.max(...performance.getEntriesByType("navigation").map((e) => e.responseEnd),
			...performance.getEntriesByType("resource").filter((e) => /\/assets\/page-[^/]*\.(js|css)$/.test(e.name)).map((e) => e.responseEnd))})`)
	var lt loadTimes
	if err := json.Unmarshal([]byte(raw), &lt); err != nil {
		t.Fatal(err)
	}
	t.Logf("timeline (ms since the navigation started): %s", browsertest.Eval[string](p, `JSON.stringify([
		...performance.getEntriesByType("navigation").map((e) => ["html", Math.round(e.connectStart), Math.round(e.secureConnectionStart), Math.round(e.requestStart), Math.round(e.responseEnd), "dcl", Math.round(e.domContentLoadedEventEnd)]),
		...performance.getEntriesByType("resource").map((e) => [e.name.slice(e.name.lastIndexOf("/") + 1), Math.round(e.startTime), Math.round(e.requestStart), Math.round(e.responseEnd)])])`))
	// Every request the load made has finished (loadingFinished comes after the script ran).
	var got []browsertest.Transfer
	for range 100 {
		got = append(got, p.Transfers()...)
		if allDone(got) {
			break
		}
		time.Sleep(20 * time.Millisecond) // DevTools' events trail the page by a moment
	}
	return lt, got
}

func allDone(trs []browsertest.Transfer) bool {
	for _, tr := range trs {
		if !tr.Done {
			return false
		}
	}
	return true
}

func wire(trs []browsertest.Transfer) (n int64, lines []string) {
	for _, tr := range trs {
		n += tr.Bytes
		cached := ""
		if tr.Cached {
			cached = " (cache)"
		}
		lines = append(lines, fmt.Sprintf("%s %d %s %q %d B%s", tr.URL[strings.LastIndex(tr.URL, "/")+1:], tr.Status, tr.Encoding, tr.Cache, tr.Bytes, cached))
	}
	return n, lines
}

// TestPageLoadsOnSlowLink: over a 1.6 Mbit/s link with 150 ms of latency (Chromium's network
// emulation) the first load of a join link fetches at most 160 KB, livekit-client included;
// what the Join button needs (the HTML, the style sheet, the page's own script of at most 20 KB:
// livekit-client comes after) is there within 1.2 s, and the time Join works is logged; opening the link again fetches at most 10 KB (the HTML:
// every asset comes from the browser's cache, immutable). Every asset is content-hashed,
// compressed (br) and immutable; the HTML is never stored; nothing answers 404, the favicon
// included; axe-core finds no accessibility violation in the page before joining.
func TestPageLoadsOnSlowLink(t *testing.T) {
	_, link := pageServer(t)
	slow := browsertest.Network{Latency: slowLatency, Download: slowBandwidth, Upload: slowBandwidth}
	// A first load, up to three times, each in a fresh browser (an empty cache, no connection
	// open): a loaded machine only adds to what the link takes, so the fastest is the page's figure.
	var (
		p      *browsertest.Page
		first  loadTimes
		trs    []browsertest.Transfer
		needed = math.Inf(1)
	)
	for try := 1; try <= 3; try++ {
		q := freshPage(t, link)
		q.Throttle(slow)
		lt, got := load(t, q, link)
		n, lines := wire(got)
		t.Logf("first load %d: %d bytes on the wire; what Join needs arrived after %.0f ms, Join usable after %.0f ms, livekit-client loaded after %.0f ms\n  %s",
			try, n, lt.Needed, lt.JoinUsable, lt.LiveKit, strings.Join(lines, "\n  "))
		if p == nil || lt.JoinUsable < first.JoinUsable {
			p, first, trs = q, lt, got
		}
		needed = min(needed, lt.Needed)
		if time.Duration(first.JoinUsable*float64(time.Millisecond)) <= maxJoinUsable {
			break
		}
	}
	n, _ := wire(trs)
	if n > maxFirstLoad {
		t.Errorf("first load: %d bytes on the wire, want at most %d", n, maxFirstLoad)
	}
	// What Join needs must be there in time; the page then enables Join as soon as the
	// microphone is open, which a machine running other work delays (the figure is logged, and
	// docs/candidate.md gives it from a quiet machine).
	t.Logf("the fastest first load: Join usable after %.0f ms", first.JoinUsable)
	if d := time.Duration(needed * float64(time.Millisecond)); d > maxJoinUsable {
		t.Errorf("what Join needs arrived after %s, want at most %s", d, maxJoinUsable)
	}
	var scripts int
	for _, tr := range trs {
		switch {
		case tr.Status != http.StatusOK:
			t.Errorf("%s answered %d", tr.URL, tr.Status)
		case strings.Contains(tr.URL, "/join/"):
			if tr.Cache != "no-store" || tr.Encoding != "br" {
				t.Errorf("the HTML: Cache-Control %q, Content-Encoding %q; want no-store, br", tr.Cache, tr.Encoding)
			}
		case strings.Contains(tr.URL, "/assets/"):
			if strings.HasSuffix(tr.URL, ".js") {
				scripts++
			}
			if strings.Contains(tr.URL, "/assets/page-") && strings.HasSuffix(tr.URL, ".js") && tr.Bytes > maxPageScript {
				t.Errorf("the page's own script is %d bytes on the wire, want at most %d: Join waits for all of it", tr.Bytes, maxPageScript)
			}
			if tr.Cache != "public, max-age=31536000, immutable" || tr.Encoding != "br" {
				t.Errorf("%s: Cache-Control %q, Content-Encoding %q; want immutable, br", tr.URL, tr.Cache, tr.Encoding)
			}
		default:
			t.Errorf("an unexpected request: %s", tr.URL)
		}
	}
	if scripts != 2 {
		t.Errorf("%d scripts loaded, want 2 (the page, then livekit-client)", scripts)
	}
	for _, href := range []string{browsertest.Eval[string](p, `document.querySelector("link[rel=icon]").href`), strings.Split(link, "/join/")[0] + "/favicon.ico"} {
		if got := p.Fetch(href); got.Status != http.StatusOK || !strings.HasPrefix(got.Type, "image/svg+xml") {
			t.Errorf("the favicon %s: %d %s", href, got.Status, got.Type)
		}
	}
	checkAccessibility(t, p)
	p.Transfers() // the checks' own requests

	again, trs := load(t, p, link)
	n, lines := wire(trs)
	t.Logf("repeat load: %d bytes on the wire; Join usable after %.0f ms\n  %s", n, again.JoinUsable, strings.Join(lines, "\n  "))
	if n > maxRepeatLoad {
		t.Errorf("repeat load: %d bytes on the wire, want at most %d", n, maxRepeatLoad)
	}
	for _, tr := range trs {
		if strings.Contains(tr.URL, "/assets/") && tr.Bytes > 0 {
			t.Errorf("repeat load fetched %s again (%d bytes)", tr.URL, tr.Bytes)
		}
	}
}

// checkAccessibility runs axe-core (pinned in the page's package-lock.json, installed by make web)
// on the page as it is now: no violation of WCAG 2.1 A/AA or axe's best practices.
func checkAccessibility(t *testing.T, p *browsertest.Page) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("src", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core: %v (make web installs it)", err)
	}
	p.Inject(string(src))
	raw := browsertest.Eval[string](p, `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}})
		.then((r) => JSON.stringify(r.violations.map((v) => v.id + ": " + v.help + " (" + v.nodes.map((n) => n.target.join(" ")).join(", ") + ")")))`)
	var violations []string
	if err := json.Unmarshal([]byte(raw), &violations); err != nil {
		t.Fatal(err)
	}
	if len(violations) > 0 {
		t.Errorf("axe-core: %d violations:\n  %s", len(violations), strings.Join(violations, "\n  "))
	}
}
