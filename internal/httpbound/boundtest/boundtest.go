// Package boundtest is a hostile OpenAI-compatible server for the tests of the bounded readers:
// it answers every path (chat completions, transcriptions, speech) with an endless body, a
// 200 MB body, a trickle or a hang, and measures a call's peak heap. Tests import it; the
// product does not.
package boundtest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Fault is how the server misbehaves.
type Fault int

// The faults.
const (
	Endless Fault = iota // 200 OK and a body that never ends, as fast as the client reads
	Huge                 // 200 OK and a 200 MB body with its Content-Length
	Trickle              // 200 OK and one byte every 50 ms, for ever
	Hang                 // the request is read and nothing is ever answered
)

// Faults are all of them, in order, for table-driven tests.
var Faults = []Fault{Endless, Huge, Trickle, Hang}

// String is the fault's name as subtests show it.
func (f Fault) String() string {
	return [...]string{"endless", "200MB", "trickle", "hang"}[f]
}

// HugeBytes is the Huge body's size.
const HugeBytes = 200 << 20

// Start runs a server answering every request with f; it closes with the test.
func Start(t testing.TB, f Fault) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	var once sync.Once
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serve(w, r, f, done)
	}))
	t.Cleanup(func() {
		once.Do(func() { close(done) })
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts
}

// prefix is the start of a reply of the request's kind: JSON that never closes, or a WAV header.
func prefix(r *http.Request) (string, []byte) {
	if bytes.HasSuffix([]byte(r.URL.Path), []byte("/audio/speech")) {
		h := []byte("RIFF\xff\xff\xff\x7fWAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\xc0\x5d\x00\x00\x80\xbb\x00\x00\x02\x00\x10\x00data\xff\xff\xff\x7f")
		return "audio/wav", h
	}
	return "application/json", []byte(`{"id":"x","object":"chat.completion","text":"`)
}

func serve(w http.ResponseWriter, r *http.Request, f Fault, done <-chan struct{}) {
	ctype, head := prefix(r)
	switch f {
	case Hang:
		select {
		case <-r.Context().Done():
		case <-done:
		}
		return
	case Huge:
		w.Header().Set("Content-Length", strconv.Itoa(HugeBytes))
	}
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	if _, err := w.Write(head); err != nil {
		return
	}
	chunk := bytes.Repeat([]byte("a"), 32<<10)
	sent := len(head)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-done:
			return
		default:
		}
		switch f {
		case Trickle:
			if _, err := w.Write([]byte("a")); err != nil {
				return
			}
			fl.Flush()
			select {
			case <-time.After(50 * time.Millisecond):
			case <-r.Context().Done():
				return
			case <-done:
				return
			}
			continue
		case Huge:
			n := min(len(chunk), HugeBytes-sent)
			if n <= 0 {
				return
			}
			if _, err := w.Write(chunk[:n]); err != nil {
				return
			}
			sent += n
		default:
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
}

// PeakHeap runs fn and returns how far the heap in use rose above where it started, sampled
// every 10 ms while fn runs and once after.
func PeakHeap(fn func()) (peak uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mu.Lock()
		if m.HeapInuse > base && m.HeapInuse-base > peak {
			peak = m.HeapInuse - base
		}
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				sample()
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	sample()
	return peak
}

// MaxHeap is the rise a bounded call may cause.
const MaxHeap = 100 << 20

// Check runs call against every fault and fails the test when a call succeeds, takes longer
// than timeout plus a second, or raises the heap by MaxHeap or more. call gets the server's
// base URL (ending in /v1) and returns the call's error.
func Check(t *testing.T, timeout time.Duration, call func(baseURL string) error) {
	t.Helper()
	for _, f := range Faults {
		t.Run(f.String(), func(t *testing.T) {
			ts := Start(t, f)
			var err error
			var took time.Duration
			peak := PeakHeap(func() {
				start := time.Now()
				err = call(ts.URL + "/v1")
				took = time.Since(start)
			})
			t.Logf("%v: %v in %v, heap +%.1f MB", f, err, took.Round(time.Millisecond), float64(peak)/(1<<20))
			if err == nil {
				t.Errorf("%v: the call succeeded", f)
			}
			if took > timeout+time.Second {
				t.Errorf("%v: took %v, want at most the timeout %v + 1s", f, took, timeout)
			}
			if peak >= MaxHeap {
				t.Errorf("%v: heap rose by %d MB, want under %d MB", f, peak>>20, MaxHeap>>20)
			}
		})
	}
}
