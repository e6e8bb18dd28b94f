// Package pgtest runs a real, throw-away PostgreSQL server for tests: Debian's server binaries,
// initdb in a temporary directory, pg_ctl on a free loopback port, password authentication over
// TCP. As root (CI) the server runs as the "postgres" user through runuser, since PostgreSQL
// refuses to run as root.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvBinDir overrides where the server binaries (initdb, pg_ctl) are found.
const EnvBinDir = "EXAMTUI_PG_BIN"

// User is the superuser the test server is created with.
const User = "exam"

// ErrNoServer reports that PostgreSQL's server binaries are not installed.
var ErrNoServer = errors.New("PostgreSQL server binaries not found (install Debian's postgresql package: make deps)")

// Server is one throw-away PostgreSQL server.
type Server struct {
	dir      string // owned by the server's user; holds data/, the socket and the log
	bin      string
	port     int
	password string
	runAs    string // "" to run as the current user

	mu      sync.Mutex
	running bool
}

// BinDir finds the newest installed server binary directory (/usr/lib/postgresql/*/bin).
func BinDir() (string, error) {
	if d := os.Getenv(EnvBinDir); d != "" {
		return d, nil
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	dirs = slices.DeleteFunc(dirs, func(d string) bool {
		_, err := os.Stat(filepath.Join(d, "initdb"))
		return err != nil
	})
	if len(dirs) == 0 {
		return "", ErrNoServer
	}
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return va - vb
	})
	return dirs[len(dirs)-1], nil
}

// New initialises and starts a server in a new temporary directory.
func New(ctx context.Context) (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "examtui-pg-")
	if err != nil {
		return nil, err
	}
	var pw [12]byte
	_, _ = rand.Read(pw[:])
	s := &Server{dir: dir, bin: bin, password: hex.EncodeToString(pw[:])}
	if os.Geteuid() == 0 {
		s.runAs = "postgres"
		u, err := user.Lookup(s.runAs)
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: running as root needs the postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte(s.password+"\n"), 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if s.runAs != "" {
		u, _ := user.Lookup(s.runAs)
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(pwFile, uid, gid); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	// TCP needs the password (so a wrong one is refused, as in production); the local socket
	// is trusted.
	if out, err := s.run(ctx, "initdb", "-D", s.dataDir(), "-U", User, "--pwfile="+pwFile,
		"--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--no-instructions"); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	var startErr error
	for range 5 { // a port picked free can be taken by another test binary before we bind it
		if s.port, startErr = freePort(); startErr != nil {
			break
		}
		if startErr = s.Start(ctx); startErr == nil {
			return s, nil
		}
	}
	_ = os.RemoveAll(dir)
	return nil, startErr
}

func (s *Server) dataDir() string { return filepath.Join(s.dir, "data") }

func (s *Server) run(ctx context.Context, tool string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, tool)
	var cmd *exec.Cmd
	if s.runAs != "" {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", s.runAs, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

// Start starts the server (again, after Stop) on its port.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return nil
	}
	opts := fmt.Sprintf("-p %d -k %s -h 127.0.0.1 -c max_connections=200", s.port, s.dir)
	if out, err := s.run(ctx, "pg_ctl", "-D", s.dataDir(), "-o", opts, "-l", filepath.Join(s.dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("pgtest: pg_ctl start on port %d: %w\n%s\n%s", s.port, err, out, lastLines(string(log), 10))
	}
	s.running = true
	return nil
}

// Stop stops the server, keeping its data (Start brings it back).
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := s.run(ctx, "pg_ctl", "-D", s.dataDir(), "-m", "fast", "-w", "stop"); err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %w\n%s", err, out)
	}
	s.running = false
	return nil
}

// Close stops the server and removes its directory.
func (s *Server) Close() error {
	err := s.Stop()
	return errors.Join(err, os.RemoveAll(s.dir))
}

// Port is the server's TCP port on 127.0.0.1.
func (s *Server) Port() int { return s.port }

// Password is the superuser's password.
func (s *Server) Password() string { return s.password }

// URLWithPassword is the URL of database db as the superuser with the given password.
func (s *Server) URLWithPassword(db, password string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(User, password),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// URL is the URL of database db as the superuser.
func (s *Server) URL(db string) string { return s.URLWithPassword(db, s.password) }

// CreateDB creates a new, empty database with a unique name and returns its URL.
func (s *Server) CreateDB(ctx context.Context, prefix string) (string, error) {
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := strings.ToLower(sanitize(prefix)) + "_" + hex.EncodeToString(b[:])
	if err := s.exec(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
		return "", fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	return s.URL(name), nil
}

// DropDB drops the database a URL from CreateDB names, disconnecting its sessions.
func (s *Server) DropDB(ctx context.Context, dbURL string) error {
	u, err := url.Parse(dbURL)
	if err != nil {
		return err
	}
	name := strings.TrimPrefix(u.Path, "/")
	return s.exec(ctx, `DROP DATABASE IF EXISTS "`+sanitize(name)+`" WITH (FORCE)`)
}

func (s *Server) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var (
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
)

// Shared returns the test binary's server, starting it on first use; Main stops it. A test
// that needs PostgreSQL fails (never skips) when the server cannot start.
func Shared(t testing.TB) *Server {
	t.Helper()
	sharedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		shared, sharedErr = New(ctx)
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// NewDB creates a fresh database on the shared server for one test and returns its URL.
func NewDB(t testing.TB) string {
	t.Helper()
	s := Shared(t)
	u, err := s.CreateDB(context.Background(), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Main runs the tests and stops the shared server if one was started. Call it from TestMain:
// os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		if err := shared.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}
