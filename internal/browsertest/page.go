package browsertest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/examtui/examtui/internal/testutil"
)

// actionTimeout bounds one DevTools round trip (a click, an evaluation), not a wait for the
// page's state: those take their own timeout.
const actionTimeout = 20 * time.Second

// Page is one tab. Every console error or uncaught exception it logs fails the test when the
// test ends, except those matching an expected substring (ExpectConsoleError).
type Page struct {
	t      testing.TB
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	errs     []string
	expected []string
	log      []string
	requests map[network.RequestID]*Transfer
	order    []network.RequestID
}

// Transfer is one HTTP request of the page as the network saw it (Network domain events, on
// once Throttle has run).
type Transfer struct {
	URL      string
	Status   int64
	Encoding string // the response's Content-Encoding
	Cache    string // the response's Cache-Control
	Bytes    int64  // on the wire: headers and the body as sent (compressed), 0 from the cache
	Cached   bool   // served from the browser's cache
	Done     bool
}

// Open opens url in a new tab and waits for it to load.
func (b *Browser) Open(t testing.TB, url string) *Page {
	t.Helper()
	p := b.Blank(t)
	p.Navigate(url)
	return p
}

// Blank opens an empty tab, for a test that sets the network up (Throttle) before it navigates.
func (b *Browser) Blank(t testing.TB) *Page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.root)
	p := newPage(t, ctx, cancel, "about:blank")
	p.run("open a tab", chromedp.Navigate("about:blank"))
	return p
}

// Frame waits up to timeout for an iframe of the page from another site whose document's URL
// starts with prefix (Chromium runs it as a target of its own) and returns it as a Page: its
// elements, scripts and console are the iframe's. A same-site iframe is no target of its own
// and is not found.
func (p *Page) Frame(prefix string, timeout time.Duration) *Page {
	p.t.Helper()
	var id target.ID
	var self target.ID
	if c := chromedp.FromContext(p.ctx); c != nil && c.Target != nil {
		self = c.Target.TargetID
	}
	found := testutil.Poll(timeout, func() bool {
		infos, err := chromedp.Targets(p.ctx)
		if err != nil {
			p.t.Fatalf("browsertest: list targets: %v", err)
		}
		for _, info := range infos {
			if info.Type == "iframe" && info.ParentID == self && strings.HasPrefix(info.URL, prefix) {
				id = info.TargetID
				return true
			}
		}
		return false
	})
	if !found {
		p.t.Fatalf("browsertest: no iframe at %s after %s", prefix, timeout)
	}
	ctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(id))
	f := newPage(p.t, ctx, cancel, prefix)
	f.run("attach to the iframe at " + prefix)
	return f
}

// newPage is a Page on a tab's or frame's context, whose console errors fail the test when it
// ends (url names it in the message).
func newPage(t testing.TB, ctx context.Context, cancel context.CancelFunc, url string) *Page {
	p := &Page{t: t, ctx: ctx, cancel: cancel, requests: map[network.RequestID]*Transfer{}}
	if err := chromedp.Listen(ctx, p.onEvent); err != nil {
		cancel()
		t.Fatalf("browsertest: open a tab: %v", err)
	}
	t.Cleanup(func() {
		p.cancel()
		if errs := p.unexpectedErrors(); len(errs) > 0 {
			t.Errorf("console errors on %s:\n  %s", url, strings.Join(errs, "\n  "))
		}
		if t.Failed() {
			p.mu.Lock()
			t.Logf("page console:\n  %s", strings.Join(p.log, "\n  "))
			p.mu.Unlock()
		}
	})
	return p
}

// Navigate opens url in the tab and waits for it to load, as following a link does.
func (p *Page) Navigate(url string) {
	p.t.Helper()
	p.run("open "+url, chromedp.Navigate(url))
}

func (p *Page) onEvent(ev any) {
	var line string
	isErr := false
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent, *network.EventResponseReceived, *network.EventRequestServedFromCache, *network.EventLoadingFinished:
		p.onNetwork(ev)
		return
	case *cdplog.EventEntryAdded:
		// The browser's own messages (a Content-Security-Policy refusal, a failed load): kept
		// for Console, not failing the test, since a page cannot prevent them all.
		if ev.Entry == nil {
			return
		}
		line = fmt.Sprintf("browser %s: %s", ev.Entry.Level, ev.Entry.Text)
	case *cdpruntime.EventConsoleAPICalled:
		var args []string
		for _, a := range ev.Args {
			if a.Value != nil {
				args = append(args, strings.Trim(string(a.Value), `"`))
			} else {
				args = append(args, a.Description)
			}
		}
		line = fmt.Sprintf("%s: %s", ev.Type, strings.Join(args, " "))
		isErr = ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeAssert
	case *cdpruntime.EventExceptionThrown:
		d := ev.ExceptionDetails
		line = "exception: " + d.Text
		if d.Exception != nil {
			line += " " + d.Exception.Description
		}
		isErr = true
	default:
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = append(p.log, line)
	if isErr {
		p.errs = append(p.errs, line)
	}
}

func (p *Page) onNetwork(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	get := func(id network.RequestID) *Transfer {
		tr, ok := p.requests[id]
		if !ok {
			tr = &Transfer{}
			p.requests[id] = tr
			p.order = append(p.order, id)
		}
		return tr
	}
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		get(ev.RequestID).URL = ev.Request.URL
	case *network.EventResponseReceived:
		tr := get(ev.RequestID)
		tr.Status = ev.Response.Status
		tr.Encoding = header(ev.Response.Headers, "Content-Encoding")
		tr.Cache = header(ev.Response.Headers, "Cache-Control")
		tr.Cached = tr.Cached || ev.Response.FromDiskCache || ev.Response.FromPrefetchCache
	case *network.EventRequestServedFromCache:
		get(ev.RequestID).Cached = true
	case *network.EventLoadingFinished:
		tr := get(ev.RequestID)
		tr.Bytes = int64(ev.EncodedDataLength)
		tr.Done = true
	}
}

func header(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			s, _ := v.(string)
			return s
		}
	}
	return ""
}

// Transfers returns the page's HTTP requests since the last call (or since Throttle), in the
// order they were made.
func (p *Page) Transfers() []Transfer {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Transfer, 0, len(p.order))
	for _, id := range p.order {
		out = append(out, *p.requests[id])
	}
	p.requests = map[network.RequestID]*Transfer{}
	p.order = nil
	return out
}

// Network is a link to emulate (DevTools' network conditions): the round-trip latency added to
// each request, and the throughput each way in bits per second (0: not limited).
type Network struct {
	Latency  time.Duration
	Download int64
	Upload   int64
}

// Throttle makes the page's network behave as n from now on (requests and WebSockets; WebRTC
// media is not shaped), with the browser's cache on, and records its requests (Transfers).
func (p *Page) Throttle(n Network) {
	p.t.Helper()
	rate := func(bits int64) float64 {
		if bits <= 0 {
			return -1
		}
		return float64(bits) / 8
	}
	p.run("throttle", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: false}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, emulateNetworkConditions, networkConditions{
			Latency: float64(n.Latency.Milliseconds()), DownloadThroughput: rate(n.Download), UploadThroughput: rate(n.Upload)})
		return err
	}))
}

// ExpectConsoleError lets console errors containing substr pass (a test that cuts the network
// expects the client library to say so).
func (p *Page) ExpectConsoleError(substr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expected = append(p.expected, substr)
}

func (p *Page) unexpectedErrors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
outer:
	for _, e := range p.errs {
		for _, x := range p.expected {
			if strings.Contains(e, x) {
				continue outer
			}
		}
		out = append(out, e)
	}
	return out
}

// Console returns what the page has logged so far, one line per call, and the browser's own
// messages about it ("browser error: Refused to frame …").
func (p *Page) Console() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.log...)
}

func (p *Page) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.t.Fatalf("browsertest: %s: %v", what, err)
	}
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise) and returns its
// value decoded as T.
func Eval[T any](p *Page, js string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("browsertest: evaluate %s: %v", js, err)
	}
	return v
}

// Do evaluates a JavaScript expression for its effect (awaiting a promise).
func (p *Page) Do(js string) {
	p.t.Helper()
	Eval[any](p, "(async () => { await ("+js+"); return null; })()")
}

// Inject runs a script's source in the page (a test library such as axe-core); the page's own
// Content-Security-Policy does not apply to what DevTools evaluates.
func (p *Page) Inject(src string) {
	p.t.Helper()
	Eval[any](p, src+"\n;null")
}

// Fetched is what Fetch got.
type Fetched struct {
	Status int    `json:"status"`
	Type   string `json:"type"` // Content-Type
}

// Fetch requests url from the page (fetch, as the page's own scripts would) and returns the
// answer's status and type.
func (p *Page) Fetch(url string) Fetched {
	p.t.Helper()
	return Eval[Fetched](p, fmt.Sprintf(`fetch(%q).then((r) => ({status: r.status, type: r.headers.get("Content-Type") || ""}))`, url))
}

// Text returns the text of the first element matching the CSS selector as the page renders it
// (innerText: hidden elements give ""), or "" when there is none.
func (p *Page) Text(sel string) string {
	p.t.Helper()
	return Eval[string](p, fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.innerText : ""; })()`, sel))
}

// Visible reports whether the element matching sel is shown (not hidden, not display:none).
func (p *Page) Visible(sel string) bool {
	p.t.Helper()
	return Eval[bool](p, fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.getClientRects().length > 0; })()`, sel))
}

// WaitText waits until the text of sel contains want, and returns that text.
func (p *Page) WaitText(sel, want string, timeout time.Duration) string {
	p.t.Helper()
	var got string
	if !testutil.Poll(timeout, func() bool { got = p.Text(sel); return strings.Contains(got, want) }) {
		p.t.Fatalf("timed out after %s waiting for %s to show %q; it shows %q", timeout, sel, want, got)
	}
	return got
}

// Record starts (or restarts) a record of every text the element matching sel shows, for
// WaitShown: a note the page replaces within milliseconds (an answer's "Sent", then the
// examiner's acknowledgement, then nothing) can be gone before a poll reads it.
func (p *Page) Record(sel string) {
	p.t.Helper()
	Eval[any](p, fmt.Sprintf(`(() => {
  const sel = %q, e = document.querySelector(sel);
  window.__browsertestShown = window.__browsertestShown || {};
  window.__browsertestShown[sel] = e ? [e.textContent] : [];
  window.__browsertestObservers = window.__browsertestObservers || {};
  if (e && !window.__browsertestObservers[sel]) {
    window.__browsertestObservers[sel] = new MutationObserver(() => window.__browsertestShown[sel].push(e.textContent));
    window.__browsertestObservers[sel].observe(e, {childList: true, characterData: true, subtree: true});
  }
  return null;
})()`, sel))
}

// WaitShown waits until the element matching sel has shown a text containing want since
// Record(sel), whether or not it still shows it.
func (p *Page) WaitShown(sel, want string, timeout time.Duration) {
	p.t.Helper()
	js := fmt.Sprintf(`(window.__browsertestShown && window.__browsertestShown[%q] || []).some((t) => t.includes(%q))`, sel, want)
	var shown []string
	if !testutil.Poll(timeout, func() bool { return Eval[bool](p, "!!("+js+")") }) {
		shown = Eval[[]string](p, fmt.Sprintf(`window.__browsertestShown && window.__browsertestShown[%q] || []`, sel))
		p.t.Fatalf("timed out after %s waiting for %s to show %q; since Record it showed %q", timeout, sel, want, shown)
	}
}

// WaitTrue waits until the JavaScript expression js is true.
func (p *Page) WaitTrue(js string, timeout time.Duration, what string) {
	p.t.Helper()
	testutil.Eventually(p.t, timeout, func() bool { return Eval[bool](p, "!!("+js+")") }, what)
}

// Focus puts the keyboard focus on sel, as Tab would.
func (p *Page) Focus(sel string) {
	p.t.Helper()
	p.run("focus "+sel, chromedp.Focus(chromedp.CSS(sel)))
}

// Press sends keys (kb.Enter, kb.Tab, text) to whatever has the focus, as a keyboard user would.
func (p *Page) Press(keys string) {
	p.t.Helper()
	p.run("press keys", chromedp.KeyEvent(keys))
}

// Type focuses sel, enters text into it in one step (as a paste or an input method does: the
// page gets its input events) and presses Enter. Key by key, a sentence is some 180 DevTools
// calls, and on a busy machine they alone outlast the action's timeout.
func (p *Page) Type(sel, text string) {
	p.t.Helper()
	insert := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
		return err
	})
	p.run("type into "+sel, chromedp.Focus(chromedp.CSS(sel)), insert, chromedp.KeyEvent(kb.Enter))
}

// Click clicks the element matching sel once it is visible.
func (p *Page) Click(sel string) {
	p.t.Helper()
	p.run("click "+sel, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// Reload reloads the page, as a candidate pressing F5 would.
func (p *Page) Reload() {
	p.t.Helper()
	p.run("reload", chromedp.Reload())
}

// Offline cuts the page's network (true) or gives it back (false), through DevTools' network
// emulation: open connections drop and new ones fail, as when Wi-Fi goes.
func (p *Page) Offline(off bool) {
	p.t.Helper()
	p.run(fmt.Sprintf("offline %v", off), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, emulateNetworkConditions, networkConditions{Offline: off, Latency: 0, DownloadThroughput: -1, UploadThroughput: -1})
		return err
	}))
}

// SetViewport sets the page's width and height in CSS pixels.
func (p *Page) SetViewport(width, height int64) {
	p.t.Helper()
	p.run("viewport", chromedp.EmulateViewport(width, height))
}

// Screenshot writes a PNG of the whole page to path.
func (p *Page) Screenshot(path string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatalf("browsertest: screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// Crash kills the tab's renderer process (DevTools' Page.crash), as when a browser is killed:
// the page does not leave the room, its connections just drop.
func (p *Page) Crash() {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	// The call never gets its answer: the renderer that would send it is gone.
	_ = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.Crash, cdp.Empty{})
		return err
	}))
}

// Close closes the tab.
func (p *Page) Close() { p.cancel() }

// emulateNetworkConditions is DevTools' Network.emulateNetworkConditions, which cdproto no longer
// generates (deprecated for the per-URL rules) but Chromium still serves: with offline true it
// cuts the page's WebSockets and WebRTC connections as well as its requests.
var emulateNetworkConditions = cdp.Command[networkConditions, cdp.Empty]{Method: "Network.emulateNetworkConditions"}

type networkConditions struct {
	Offline            bool    `json:"offline"`
	Latency            float64 `json:"latency"`
	DownloadThroughput float64 `json:"downloadThroughput"`
	UploadThroughput   float64 `json:"uploadThroughput"`
}
