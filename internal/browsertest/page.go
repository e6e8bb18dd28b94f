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
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
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
}

// Open opens url in a new tab and waits for it to load.
func (b *Browser) Open(t testing.TB, url string) *Page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.root)
	p := &Page{t: t, ctx: ctx, cancel: cancel}
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
	p.run("open "+url, chromedp.Navigate(url))
	return p
}

func (p *Page) onEvent(ev any) {
	var line string
	isErr := false
	switch ev := ev.(type) {
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

// Console returns what the page has logged so far, one line per call.
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

// Type focuses sel, types text into it key by key and presses Enter.
func (p *Page) Type(sel, text string) {
	p.t.Helper()
	p.run("type into "+sel, chromedp.Focus(chromedp.CSS(sel)), chromedp.KeyEvent(text), chromedp.KeyEvent(kb.Enter))
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
