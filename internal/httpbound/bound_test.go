package httpbound_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/internal/httpbound"
	"github.com/examtui/examtui/internal/httpbound/boundtest"
)

func get(hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader("{}"))
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	return err
}

func TestFaults(t *testing.T) {
	for _, k := range []httpbound.Kind{httpbound.KindLLM, httpbound.KindSTT, httpbound.KindTTS, httpbound.KindPanel, httpbound.KindLiveKit} {
		t.Run(k.String(), func(t *testing.T) {
			// Long enough for the cap to be reached first, even for speech's 16 MiB under -race
			// on a loaded machine: the test checks the cap, and the timeout for what never ends.
			timeout := time.Second
			if k.MaxBytes() > httpbound.MaxLLMBytes {
				timeout = 4 * time.Second
			}
			hc := httpbound.MustClient(k, nil, timeout)
			boundtest.Check(t, timeout, func(base string) error { return get(hc, base+"/chat/completions") })
		})
	}
}

func TestErrorsNameTheEndpointAndLimit(t *testing.T) {
	tests := []struct {
		fault boundtest.Fault
		want  error
		says  string
	}{
		{boundtest.Endless, httpbound.ErrTooLarge, "passed 1048576 bytes"},
		{boundtest.Huge, httpbound.ErrTooLarge, "passed 1048576 bytes"},
		{boundtest.Trickle, httpbound.ErrTimeout, "took over 300ms"},
		{boundtest.Hang, httpbound.ErrTimeout, "took over 300ms"},
	}
	for _, tc := range tests {
		t.Run(tc.fault.String(), func(t *testing.T) {
			ts := boundtest.Start(t, tc.fault)
			hc := httpbound.MustClient(httpbound.KindLLM, nil, 300*time.Millisecond)
			err := get(hc, ts.URL+"/v1/chat/completions")
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			host := strings.TrimPrefix(ts.URL, "http://")
			if !strings.Contains(err.Error(), host+"/v1/chat/completions") || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "llm reply") {
				t.Errorf("err = %q, want the kind, endpoint %s and %q", err, host, tc.says)
			}
		})
	}
}

// A reply of exactly the cap is whole; the caller's own deadline stays the caller's error.
func TestWithinBounds(t *testing.T) {
	body := strings.Repeat("x", 4096)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, body) }))
	defer ts.Close()
	hc, err := httpbound.Client(httpbound.KindSTT, nil, httpbound.WithMaxBytes(4096))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(got) != 4096 {
		t.Fatalf("read %d bytes, %v; want 4096, nil", len(got), err)
	}

	hang := boundtest.Start(t, boundtest.Hang)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, hang.URL, nil)
	_, err = httpbound.MustClient(httpbound.KindSTT, nil, time.Minute).Do(req)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, httpbound.ErrTimeout) {
		t.Errorf("err = %v, want the caller's deadline", err)
	}
}

func TestOptions(t *testing.T) {
	if _, err := httpbound.Client(httpbound.KindLLM, nil, httpbound.WithMaxBytes(10)); !errors.Is(err, httpbound.ErrInvalidOption) {
		t.Errorf("WithMaxBytes(10): %v", err)
	}
	if _, err := httpbound.Client(httpbound.KindLLM, nil, httpbound.WithTimeout(-1)); !errors.Is(err, httpbound.ErrInvalidOption) {
		t.Errorf("WithTimeout(-1): %v", err)
	}
}

// The LiveKit server SDK builds its API clients on Go's default transport; bounded, a room
// listing against a hostile server fails within the timeout and a second, heap under 100 MB.
func TestLiveKitAPIBounded(t *testing.T) {
	saved := http.DefaultTransport
	httpbound.BoundDefaultTransport()
	t.Cleanup(func() { http.DefaultTransport = saved })
	boundtest.Check(t, httpbound.LiveKitTimeout, func(base string) error {
		rooms := lksdk.NewRoomServiceClient(strings.TrimSuffix(base, "/v1"), "key", "a-secret-of-at-least-32-characters!!")
		_, err := rooms.ListRooms(context.Background(), &livekit.ListRoomsRequest{})
		return err
	})
}
