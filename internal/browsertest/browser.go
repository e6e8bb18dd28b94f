package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// DefaultPath is Debian's Chromium; $EXAMTUI_CHROMIUM overrides it.
const DefaultPath = "/usr/bin/chromium"

// ErrNoChromium is returned when the browser binary is not installed.
var ErrNoChromium = errors.New("browsertest: chromium not found (make test installs the Debian package)")

// Browser is one headless Chromium process with its own fresh profile.
type Browser struct {
	alloc  context.Context // the allocator: one process per Browser
	cancel context.CancelFunc
	root   context.Context // the first tab, which keeps the process alive
	wav    string
	tls    bool
	flags  []chromedp.ExecAllocatorOption
}

// Option configures Start.
type Option func(*Browser)

// WithFakeAudio makes the fake microphone play path (a WAV; Chromium loops it). Chromium reads
// the file each time capture starts, so a test can rewrite it between answers and restart the
// page's capture (SetFakeAudio).
func WithFakeAudio(path string) Option { return func(b *Browser) { b.wav = path } }

// WithIgnoreCertificateErrors makes the browser accept any TLS certificate: for a test server's
// own (httptest.NewTLSServer).
func WithIgnoreCertificateErrors() Option { return func(b *Browser) { b.tls = true } }

// WithFlag adds a Chromium command-line switch (name without the dashes; value true for a
// bare switch), e.g. WithFlag("test-third-party-cookie-phaseout", true) to block third-party
// cookies as a browser that has turned them off does.
func WithFlag(name string, value any) Option {
	return func(b *Browser) { b.flags = append(b.flags, chromedp.Flag(name, value)) }
}

// Start launches Chromium headless with a fake microphone and camera granted without a prompt,
// a fresh --user-data-dir and nothing running in the background; it stops with the test.
func Start(t testing.TB, opts ...Option) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: this test needs Chromium (make test runs it)")
	}
	path := os.Getenv("EXAMTUI_CHROMIUM")
	if path == "" {
		path = DefaultPath
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%v: %v", ErrNoChromium, err)
	}
	b := &Browser{}
	for _, o := range opts {
		o(b)
	}
	flags := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1024, 900),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		// The examiner's voice plays without a click (the test's Join click is a gesture too,
		// but the level meter starts before it).
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
	}
	if b.tls {
		flags = append(flags, chromedp.Flag("ignore-certificate-errors", true))
	}
	if b.wav != "" {
		flags = append(flags, chromedp.Flag("use-file-for-fake-audio-capture", b.wav))
	}
	flags = append(flags, chromedp.NoInheritEnv, chromedp.Env(chromiumEnv(os.Environ())...))
	flags = append(flags, b.flags...)
	b.alloc, b.cancel = chromedp.NewExecAllocator(context.Background(), flags...)
	root, cancelRoot := chromedp.NewContext(b.alloc)
	b.root = root
	t.Cleanup(func() {
		cancelRoot()
		b.cancel()
	})
	if err := chromedp.Do(root); err != nil {
		t.Fatalf("browsertest: start %s: %v", path, err)
	}
	return b
}

// Close stops the browser process at once (a candidate's browser killed); Start's cleanup does
// the same when the test ends.
func (b *Browser) Close() { b.cancel() }

func (b *Browser) String() string { return fmt.Sprintf("chromium (fake audio %q)", b.wav) }

// chromiumEnv is the test's environment without ALSA_CONFIG_PATH. The audio tests point ALSA at
// its null device, which takes audio as fast as it is written: Chromium's audio output would
// run many times faster than real time there, so WebRTC's playout would pull its jitter buffer
// dry again and again and raise its delay to a second or more (the examiner's voice reached the
// page's latency probe that late). Without it Chromium finds no sound card and plays on its own
// clock, in real time.
func chromiumEnv(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "ALSA_CONFIG_PATH=") })
}
