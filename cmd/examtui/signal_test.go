package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
)

// TestSignalStopsALoad: SIGTERM ends a command whose work never looks at its context (here
// `check` reading a spec from a pipe that never ends, as a hostile spec's parse once ran for
// 700 s with SIGTERM ignored): after the grace period, with status 143; a second signal ends it
// at once.
func TestSignalStopsALoad(t *testing.T) {
	bin := examtuiBinary(t)
	for _, tc := range []struct {
		name    string
		signals []syscall.Signal
		code    int
		within  time.Duration
	}{
		{"SIGTERM, then the grace period", []syscall.Signal{syscall.SIGTERM}, 143, signalGrace + 3*time.Second},
		// A closed terminal (tmux kill-session, a dropped SSH connection) is a stop like SIGTERM:
		// the command's context ends and it closes what it holds (a recording's files).
		{"SIGHUP, then the grace period", []syscall.Signal{syscall.SIGHUP}, 129, signalGrace + 3*time.Second},
		// Two signals sent together may arrive as one: SIGINT is repeated until the process
		// ends, which must be well before the grace period.
		{"SIGINT again", []syscall.Signal{syscall.SIGINT}, 130, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "spec.yaml")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			// Opened read-write so the command's open never waits for a writer: its read does.
			hold, err := os.OpenFile(fifo, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer hold.Close()
			var stderr strings.Builder
			cmd := exec.Command(bin, "check", fifo)
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// The command is reading once its handler is installed and the FIFO is open by it.
			testutil.Eventually(t, 10*time.Second, func() bool {
				links, _ := filepath.Glob("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/fd/*")
				for _, l := range links {
					if p, _ := os.Readlink(l); p == fifo {
						return true
					}
				}
				return false
			}, "the command to open the FIFO")
			start := time.Now()
			for _, s := range tc.signals {
				if err := cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), tc.within)
			defer cancel()
			var again <-chan time.Time
			if tc.signals[0] == syscall.SIGINT {
				tick := time.NewTicker(100 * time.Millisecond)
				defer tick.Stop()
				again = tick.C
			}
			for {
				select {
				case <-again:
					_ = cmd.Process.Signal(syscall.SIGINT)
					continue
				case err := <-done:
					var ee *exec.ExitError
					if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
						t.Fatalf("exit %v, want status %d; stderr %q", err, tc.code, stderr.String())
					}
					t.Logf("stopped %v after the signal", time.Since(start).Round(time.Millisecond))
				case <-ctx.Done():
					_ = cmd.Process.Kill()
					t.Fatalf("still running %v after %v", tc.within, tc.signals)
				}
				return
			}
		})
	}
}
