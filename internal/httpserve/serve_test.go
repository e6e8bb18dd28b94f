package httpserve_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/httpserve"
	"github.com/examtui/examtui/internal/testutil"
)

// start serves h with lim on loopback until the test ends; it returns the address.
func start(t *testing.T, h http.Handler, lim httpserve.Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- httpserve.Serve(ctx, &http.Server{Handler: h}, ln, time.Second, httpserve.WithLimits(lim))
	}()
	t.Cleanup(func() {
		cancel()
		if err := testutil.Recv(t, done, 5*time.Second, "the server to stop"); err != nil {
			t.Error(err)
		}
	})
	return ln.Addr().String()
}

// dialFrom connects from a loopback source address of our own (127.0.0.x), as a distinct client.
func dialFrom(t *testing.T, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 2 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// get sends one GET on c and returns the status line and the headers.
func get(t *testing.T, c net.Conn, path string) (*http.Response, error) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, nil
}

var ok = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/slow" {
		<-r.Context().Done()
		return
	}
	_, _ = io.WriteString(w, "ok")
})

// Idle connections from one address (or from all) do not shut out a new one: the oldest idle
// one is closed to make room.
func TestIdleConnectionsMakeRoom(t *testing.T) {
	addr := start(t, ok, httpserve.Limits{MaxConns: 8, MaxConnsPerAddr: 4})
	var idle []net.Conn
	for range 4 {
		idle = append(idle, dialFrom(t, "127.0.0.2", addr))
	}
	for i := range 4 {
		idle = append(idle, dialFrom(t, fmt.Sprintf("127.0.0.%d", 3+i), addr))
	}
	for _, src := range []string{"127.0.0.2", "127.0.0.1"} {
		resp, err := get(t, dialFrom(t, src, addr), "/")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("from %s past idle connections: %v %v", src, resp, err)
		}
	}
	// The oldest idle connection was closed: reading it ends.
	_ = idle[0].SetReadDeadline(time.Now().Add(2 * time.Second))
	var ne net.Error
	if _, err := idle[0].Read(make([]byte, 1)); err == nil || (errors.As(err, &ne) && ne.Timeout()) {
		t.Errorf("the oldest idle connection is still open: %v", err)
	}
}

// Connections inside a request are never closed to make room; past the cap a new connection
// gets 503 with Retry-After, and other addresses are served.
func TestBusyAddressGets503(t *testing.T) {
	// The two slow requests must be in the handler (their connections busy, not idle) before
	// the third connection comes, or the cap would rightly close one of them to make room.
	inside := make(chan struct{}, 2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			inside <- struct{}{}
		}
		ok.ServeHTTP(w, r)
	})
	addr := start(t, h, httpserve.Limits{MaxConns: 8, MaxConnsPerAddr: 2, RetryAfter: 3 * time.Second})
	for range 2 {
		c := dialFrom(t, "127.0.0.2", addr)
		if _, err := fmt.Fprintf(c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		testutil.Recv(t, inside, 5*time.Second, "the slow request to reach the handler")
	}
	testutil.Eventually(t, 5*time.Second, func() bool {
		resp, err := get(t, dialFrom(t, "127.0.0.2", addr), "/")
		return err == nil && resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "3"
	}, "a third connection from the busy address to get 503")
	resp, err := get(t, dialFrom(t, "127.0.0.1", addr), "/")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("another address: %v %v", resp, err)
	}
}

// A request whose headers trickle is cut at the read-header timeout; a body over the cap is
// refused.
func TestTimeoutsAndBodyCap(t *testing.T) {
	var bodyErr = make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		bodyErr <- err
	})
	addr := start(t, h, httpserve.Limits{ReadHeaderTimeout: 300 * time.Millisecond, ReadTimeout: 600 * time.Millisecond, MaxBodyBytes: 1024})

	c := dialFrom(t, "127.0.0.1", addr)
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
	start := time.Now()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := io.ReadAll(c)
	if took := time.Since(start); err != nil || took > 1300*time.Millisecond {
		t.Errorf("slow headers: closed after %v (%v), want within the read-header timeout and a second", took, err)
	}

	c = dialFrom(t, "127.0.0.1", addr)
	_, _ = fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4096\r\n\r\n%s", strings.Repeat("x", 2048))
	var mbe *http.MaxBytesError
	if err := testutil.Recv(t, bodyErr, 5*time.Second, "the handler's body read"); !errors.As(err, &mbe) {
		t.Errorf("a body over the cap: %v, want MaxBytesError", err)
	}

	c = dialFrom(t, "127.0.0.1", addr)
	_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nxx")
	if err := testutil.Recv(t, bodyErr, 5*time.Second, "the handler's body read"); err == nil {
		t.Errorf("a trickled body was read whole")
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []httpserve.Option{httpserve.WithMaxConns(0, 1), httpserve.WithMaxConns(2, 3), httpserve.WithMaxBody(0),
		httpserve.WithWriteTimeout(0), httpserve.WithTLS(nil), httpserve.WithLimits(httpserve.Limits{MaxConns: 1, MaxConnsPerAddr: 2})} {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		err := httpserve.Serve(context.Background(), &http.Server{}, ln, 0, o)
		ln.Close()
		if !errors.Is(err, httpserve.ErrInvalidOption) {
			t.Errorf("err %v, want ErrInvalidOption", err)
		}
	}
}
