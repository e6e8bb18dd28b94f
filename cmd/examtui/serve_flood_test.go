package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	candsrv "github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/internal/testutil"
)

// serveSecret is the LiveKit API secret the served tests' `examtui serve` signs with.
const serveSecret = "serve-test-secret-0123456789abcdef"

// served is a running `examtui serve` of the real binary.
type served struct {
	base, dir, logFile string
	env                []string
	cmd                *exec.Cmd
	done               chan error // its exit
	stderr             *testutil.SyncBuffer
}

// startServe runs the real binary's `examtui serve` on loopback with extra arguments, under
// argv prefix wrap (a prlimit, say; nil for none), and returns it once its banner names its
// base URL. It is killed when the test ends.
func startServe(t *testing.T, wrap []string, extra ...string) *served {
	t.Helper()
	s := &served{dir: t.TempDir(), done: make(chan error, 1), stderr: &testutil.SyncBuffer{}}
	s.logFile = filepath.Join(s.dir, "serve.log")
	s.env = append(os.Environ(), "LIVEKIT_API_KEY=devkey", "LIVEKIT_API_SECRET="+serveSecret, "LIVEKIT_URL=wss://lk.example.test")
	args := append(append(append([]string{}, wrap...), examtuiBinary(t), "serve", "--data-dir", s.dir, "--log-file", s.logFile,
		"--addr", "127.0.0.1:0"), extra...)
	s.cmd = exec.Command(args[0], args[1:]...)
	s.cmd.Env = s.env
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() { _ = s.cmd.Process.Kill() })
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	banner := testutil.Recv(t, lines, 30*time.Second, "serve's banner")
	at, ok := strings.CutPrefix(banner, "examtui serve: candidates join at ")
	if !ok {
		t.Fatalf("banner %q, stderr %s", banner, s.stderr.String())
	}
	s.base = strings.TrimSuffix(strings.Fields(at)[0], "/join/<code>")
	return s
}

// newLink makes a candidate's join link with the real binary and returns its code.
func (s *served) newLink(t *testing.T, room, identity string, extra ...string) string {
	t.Helper()
	tok := exec.Command(examtuiBinary(t), append([]string{"token", "--data-dir", s.dir, "--log-file", s.logFile, "--role", "candidate", "--link",
		"--room", room, "--identity", identity}, extra...)...)
	tok.Env = append(s.env, candsrv.EnvServeURL+"="+s.base)
	base := s.base
	out, err := tok.Output()
	if err != nil {
		t.Fatalf("token --link: %v %s", err, out)
	}
	code, ok := strings.CutPrefix(strings.TrimSpace(string(out)), base+"/join/")
	if !ok {
		t.Fatalf("token --link printed %q", out)
	}
	return code
}

// TestServeConnectionFlood: `examtui serve` with 1,024 file descriptors, held by 5,000
// connections (idle ones from the candidate's own address and from others, slow headers, slow
// bodies), still answers /healthz and a join within a second each. Before the connection caps
// the flood used up the descriptors and nothing answered.
func TestServeConnectionFlood(t *testing.T) {
	s := startServe(t, []string{"prlimit", "--nofile=1024:1024", "--"})
	base, proc := s.base, s.cmd.Process
	code := s.newLink(t, "exam-flood", "ada")
	addr := strings.TrimPrefix(base, "http://")

	// The flood: 5,000 connections from four loopback addresses, held until the test ends.
	kinds := []struct {
		src, send string
		n         int
	}{
		{"127.0.0.1", "", 1500}, // idle, from the candidate's own address
		{"127.0.0.2", "", 1500}, // idle
		{"127.0.0.3", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ", 1000},                                                            // headers never finished
		{"127.0.0.4", "POST /api/join HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", 1000}, // a body that never comes
	}
	var mu sync.Mutex
	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	var wg sync.WaitGroup
	sem := make(chan struct{}, 200)
	opened := 0
	for _, k := range kinds {
		for range k.n {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(k.src)}, Timeout: 2 * time.Second}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					return
				}
				if k.send != "" {
					_ = c.SetWriteDeadline(time.Now().Add(time.Second))
					_, _ = io.WriteString(c, k.send)
				}
				mu.Lock()
				held = append(held, c)
				opened++
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	t.Logf("flood: %d of 5000 connections opened", opened)

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	timed := func(what string, do func() (*http.Response, error), want int) {
		t.Helper()
		start := time.Now()
		resp, err := do()
		took := time.Since(start)
		if err != nil {
			t.Fatalf("%s during the flood: %v after %v", what, err, took)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Logf("%s: %d in %v", what, resp.StatusCode, took.Round(time.Millisecond))
		if resp.StatusCode != want || took > time.Second {
			t.Errorf("%s during the flood: %d %q in %v, want %d within 1s", what, resp.StatusCode, body, took, want)
		}
	}
	for i := range 3 {
		timed(fmt.Sprintf("GET /healthz #%d", i+1), func() (*http.Response, error) { return client.Get(base + "/healthz") }, http.StatusOK)
	}
	timed("POST /api/join", func() (*http.Response, error) {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, base+"/api/join", strings.NewReader(`{"code":"`+code+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", base)
		return client.Do(req)
	}, http.StatusOK)

	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", proc.Pid))
	if err == nil {
		t.Logf("serve holds %d file descriptors", len(fds))
		if len(fds) >= 1024 {
			t.Errorf("serve holds %d file descriptors, its limit", len(fds))
		}
	}
}
