// Package browsertest is a test harness: Debian's Chromium, headless, driven over the DevTools
// protocol (chromedp), with a fake microphone that plays a WAV file. Tests open pages, wait for
// what the page shows, type and click as a keyboard user would, and fail on any console error
// the page logs (unless the test says it expects that one).
//
//	b := browsertest.Start(t, browsertest.WithFakeAudio(wav))
//	p := b.Open(t, srv.URL+"/join/"+code)
//	p.WaitText("#state", "in progress", 30*time.Second)
//
// Start skips under -short (make test-short); a missing Chromium fails the test (make test
// installs it: the Makefile's TEST_APT_PACKAGES).
package browsertest
