package controlhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/controlhttp"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
)

type boundsFixture struct {
	store *sessions.Store
	srv   *controlhttp.Server
	hs    *httptest.Server
	mu    sync.Mutex
	now   time.Time
}

func (f *boundsFixture) clock() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }
func (f *boundsFixture) advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

func newBounds(t *testing.T, opts ...controlhttp.Option) *boundsFixture {
	t.Helper()
	store, err := app.OpenStore(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	f := &boundsFixture{store: store, now: time.Now()}
	srv, err := controlhttp.New(store, app.Options{SpecPath: "../../../../examples/hotel-breakfast.yaml"}, append(opts, controlhttp.WithClock(f.clock))...)
	if err != nil {
		t.Fatal(err)
	}
	f.srv, f.hs = srv, httptest.NewServer(srv.Handler())
	t.Cleanup(f.hs.Close)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *boundsFixture) do(t *testing.T, method, path string, body any) (int, map[string]any, http.Header) {
	t.Helper()
	var rd *bytes.Reader
	if s, ok := body.(string); ok {
		rd = bytes.NewReader([]byte(s))
	} else {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, f.hs.URL+path, rd)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out, resp.Header
}

func (f *boundsFixture) create(t *testing.T) (int, string) {
	t.Helper()
	st, out, _ := f.do(t, "POST", "/v1/sessions", "")
	id, _ := out["sessionId"].(string)
	return st, id
}

// TestSessionCapAndExpiry: past the cap a new session is refused 503 with Retry-After (1,402
// sessions were held before, 584 MB); a session no request touched for the idle expiry is closed
// and resumable in the store; DELETE and expiry free places.
func TestSessionCapAndExpiry(t *testing.T) {
	f := newBounds(t, controlhttp.WithMaxSessions(2), controlhttp.WithIdleExpiry(time.Minute))
	_, a := f.create(t)
	f.advance(40 * time.Second)
	_, b := f.create(t)
	if st, out, h := f.do(t, "POST", "/v1/sessions", ""); st != http.StatusServiceUnavailable || out["code"] != "too_many_sessions" || h.Get("Retry-After") == "" {
		t.Fatalf("a third session: %d %v %v, want 503 too_many_sessions with Retry-After", st, out, h)
	}
	f.advance(30 * time.Second) // a: 70 s idle; b: 30 s
	f.srv.ExpireIdle()
	if st, _, _ := f.do(t, "GET", "/v1/sessions/"+a, nil); st != http.StatusNotFound {
		t.Errorf("the idle session after the expiry: %d, want 404", st)
	}
	if st, _, _ := f.do(t, "GET", "/v1/sessions/"+b, nil); st != http.StatusOK {
		t.Errorf("the session in use: %d, want 200", st)
	}
	if sum, err := f.store.Get(context.Background(), a); err != nil || (sum.Status() != sessions.StatusInterrupted && sum.Status() != sessions.StatusRunning) {
		t.Errorf("the expired session in the store: %v %v, want it kept, resumable", sum.Status(), err)
	}
	if st, _ := f.create(t); st != http.StatusCreated {
		t.Errorf("a session after the expiry freed a place: %d", st)
	}
}

// TestTurnIDAndBounds: a retried turn (same turnId) gets the same answer and is stored once
// (it was stored twice); a duration past runtime.MaxTurnDuration (10¹² ms was accepted) and an
// answer past runtime.MaxTurnTextRunes (200 KB was accepted), the room wire's bounds, are refused.
func TestTurnIDAndBounds(t *testing.T) {
	f := newBounds(t)
	_, id := f.create(t)
	turn := map[string]any{"text": runtimetest.RehearsalAnswers[0], "turnId": "turn-1",
		"observation": runtimetest.Args{AnswerQuality: "substantive", SpokenText: "What would that cost?"}.String()}
	st1, first, _ := f.do(t, "POST", "/v1/sessions/"+id+"/turns", turn)
	st2, again, _ := f.do(t, "POST", "/v1/sessions/"+id+"/turns", turn)
	if st1 != http.StatusOK || st2 != http.StatusOK || fmt.Sprint(first) != fmt.Sprint(again) {
		t.Fatalf("a retried turn: %d %v then %d %v, want the same answer", st1, first, st2, again)
	}
	if n := candidateSegments(t, f.store, id); n != 1 {
		t.Errorf("a retried turn stored %d candidate segments, want 1", n)
	}
	for _, tc := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"10¹² ms", map[string]any{"text": "fine", "durationMs": int64(1e12)}, http.StatusBadRequest},
		{"an hour and a millisecond", map[string]any{"text": "fine", "durationMs": time.Hour.Milliseconds() + 1}, http.StatusBadRequest},
		{"200 KB", map[string]any{"text": strings.Repeat("a", 200<<10)}, http.StatusBadRequest},
		{"one character over", map[string]any{"text": strings.Repeat("é", runtime.MaxTurnTextRunes+1)}, http.StatusBadRequest},
		{"a long turn id", map[string]any{"text": "fine", "turnId": strings.Repeat("x", controlhttp.MaxTurnIDLen+1)}, http.StatusBadRequest},
	} {
		if st, out, _ := f.do(t, "POST", "/v1/sessions/"+id+"/turns", tc.body); st != tc.want {
			t.Errorf("%s: %d %v, want %d", tc.name, st, out, tc.want)
		}
	}
	if n := candidateSegments(t, f.store, id); n != 1 {
		t.Errorf("refused turns were stored: %d segments, want 1", n)
	}
}

func candidateSegments(t *testing.T, store *sessions.Store, id string) int {
	n := 0
	for _, e := range storedEvents(t, store, id) {
		if p, err := e.Decode(); err == nil {
			if seg, ok := p.(*runtime.TranscriptSegmentPayload); ok && seg.Speaker == runtime.SpeakerCandidate {
				n++
			}
		}
	}
	return n
}
