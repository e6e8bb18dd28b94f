package lktest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/examtui/examtui/transport/livekit"
)

// readyTimeout bounds how long a starting server may take to answer on its HTTP port.
const readyTimeout = 30 * time.Second

// Server is one livekit-server process on loopback.
type Server struct {
	URL     string // ws://127.0.0.1:<port>, for joining
	HTTPURL string // http://127.0.0.1:<port>, for the server API
	APIKey  string
	Secret  string
	Room    string // a room name unique to this server, for Token

	t        testing.TB
	bin      string
	dir      string
	logLevel string
	port     int
	rtcTCP   int
	rtcUDP   int

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
	logFile *os.File
}

// Option configures Start.
type Option func(*Server)

// WithLogLevel sets the server's log level (default "warn", or $EXAMTUI_LIVEKIT_LOG_LEVEL).
func WithLogLevel(level string) Option { return func(s *Server) { s.logLevel = level } }

// Start runs a livekit-server on free loopback ports with a fresh key and secret, waits until it
// answers, and stops it when the test ends. A missing binary fails the test: the harness is part
// of the test suite, not optional. With -short (make test-short) the test is skipped instead:
// the short run is the quick loop, make test runs everything.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: this test needs a real LiveKit server (make test runs it)")
	}
	bin, err := findBinary()
	if err != nil {
		t.Fatalf("lktest: %v", err)
	}
	s := &Server{
		t:        t,
		bin:      bin,
		dir:      t.TempDir(),
		logLevel: "warn",
		APIKey:   "examtui-test-" + randomHex(4),
		Secret:   randomHex(24),
		Room:     "exam-" + randomHex(4),
	}
	if lvl := os.Getenv("EXAMTUI_LIVEKIT_LOG_LEVEL"); lvl != "" {
		s.logLevel = lvl
	}
	for _, o := range opts {
		o(s)
	}
	t.Cleanup(func() {
		if t.Failed() {
			s.dumpLog(60)
		}
		s.Stop()
	})

	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		if lastErr = s.pickPorts(); lastErr != nil {
			continue
		}
		if lastErr = s.start(); lastErr == nil {
			return s
		}
		t.Logf("lktest: start attempt %d: %v", attempt+1, lastErr)
	}
	t.Fatalf("lktest: livekit-server did not start: %v", lastErr)
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // cannot happen on Linux
	}
	return hex.EncodeToString(b)
}

func (s *Server) pickPorts() error {
	var err error
	if s.port, err = freeTCPPort(); err != nil {
		return err
	}
	if s.rtcTCP, err = freeTCPPort(); err != nil {
		return err
	}
	if s.rtcUDP, err = freeUDPPort(); err != nil {
		return err
	}
	s.URL = fmt.Sprintf("ws://127.0.0.1:%d", s.port)
	s.HTTPURL = fmt.Sprintf("http://127.0.0.1:%d", s.port)
	return nil
}

// config is the server's YAML configuration: loopback only, one UDP and one TCP port for media,
// no external IP discovery (there is no network), and our own key. node_ip and bind_addresses
// leave the UDP media port on every interface: interfaces.includes keeps it on lo.
func (s *Server) config() string {
	return fmt.Sprintf(`port: %d
bind_addresses: [127.0.0.1]
rtc:
  tcp_port: %d
  udp_port: %d
  use_external_ip: false
  node_ip: 127.0.0.1
  enable_loopback_candidate: true
  interfaces:
    includes: [lo]
keys:
  %s: %s
logging:
  level: %s
`, s.port, s.rtcTCP, s.rtcUDP, s.APIKey, s.Secret, s.logLevel)
}

func (s *Server) start() error {
	cfgPath := filepath.Join(s.dir, "livekit.yaml")
	if err := os.WriteFile(cfgPath, []byte(s.config()), 0o600); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	logFile, err := os.OpenFile(filepath.Join(s.dir, "livekit.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	cmd := exec.Command(s.bin, "--config", cfgPath)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group, so a signal to the test's group does not reach it twice and killing
	// it never touches anything else.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	exited := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.exited, s.logFile, s.waitErr = cmd, exited, logFile, nil
	s.mu.Unlock()
	go func() {
		err := cmd.Wait()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(exited)
	}()
	if err := s.waitReady(exited); err != nil {
		s.kill(syscall.SIGKILL)
		return err
	}
	return nil
}

func (s *Server) waitReady(exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.HTTPURL+"/", nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			s.mu.Lock()
			err := s.waitErr
			s.mu.Unlock()
			return fmt.Errorf("livekit-server exited during start-up: %v (log: %s)", err, s.logTail(10))
		case <-ctx.Done():
			return fmt.Errorf("livekit-server not ready after %s (log: %s)", readyTimeout, s.logTail(10))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// kill signals the process and waits for it to exit.
func (s *Server) kill(sig syscall.Signal) {
	s.mu.Lock()
	cmd, exited, logFile := s.cmd, s.exited, s.logFile
	s.cmd, s.logFile = nil, nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
	logFile.Close()
}

// Stop ends the server (SIGTERM, then SIGKILL after 10 s). Safe to call more than once.
func (s *Server) Stop() { s.kill(syscall.SIGTERM) }

// Crash kills the server without letting it say goodbye to anyone, as a crash or a lost host
// would.
func (s *Server) Crash() { s.kill(syscall.SIGKILL) }

// Restart crashes the server and starts a new one on the same ports, key and secret, so clients
// find it again at the same URL with the same tokens. Every room is gone: participants must
// rejoin.
func (s *Server) Restart() {
	s.t.Helper()
	s.Crash()
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(250 * time.Millisecond) // the old sockets may linger a moment
	}
	s.t.Fatalf("lktest: restart: %v", err)
}

// Token mints a join token for this server's room.
func (s *Server) Token(identity string, role livekit.Role) string {
	s.t.Helper()
	return s.RoomToken(s.Room, identity, role)
}

// RoomToken mints a join token for any room on this server.
func (s *Server) RoomToken(room, identity string, role livekit.Role) string {
	s.t.Helper()
	tok, err := livekit.NewToken(s.APIKey, s.Secret, room, identity, role)
	if err != nil {
		s.t.Fatalf("lktest: token: %v", err)
	}
	return tok
}

func (s *Server) logTail(n int) string {
	f, err := os.Open(filepath.Join(s.dir, "livekit.log"))
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}

func (s *Server) dumpLog(n int) {
	s.t.Logf("lktest: last lines of the livekit-server log:\n%s", s.logTail(n))
}

// CPUTime is the CPU time (user and system) the running server process has used, read from
// /proc (Linux); 0 when it cannot be read. Benchmarks report it beside their own.
func (s *Server) CPUTime() time.Duration {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) start at state; utime and stime
	// are the 14th and 15th fields of the line, in clock ticks (USER_HZ, 100 on Linux).
	s2 := string(data)
	i := strings.LastIndexByte(s2, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s2[i+1:])
	if len(f) < 13 {
		return 0
	}
	var utime, stime int64
	if _, err := fmt.Sscan(f[11], &utime); err != nil {
		return 0
	}
	if _, err := fmt.Sscan(f[12], &stime); err != nil {
		return 0
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
