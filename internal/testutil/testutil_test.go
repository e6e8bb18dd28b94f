package testutil

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// recorder is a testing.TB that records failures instead of failing; Fatal ends the calling
// goroutine as the real one does, so helpers stop where a real test would.
type recorder struct {
	testing.TB
	failed atomic.Bool
	msg    atomic.Value
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestX" }
func (r *recorder) Errorf(format string, args ...any) {
	r.failed.Store(true)
	r.msg.Store(fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }
func (r *recorder) message() string   { s, _ := r.msg.Load().(string); return s }

// run calls f with a fresh recorder on its own goroutine (so Fatal's Goexit ends only f).
func run(f func(tb testing.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() { defer close(done); f(r) }()
	<-done
	return r
}

func TestGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	if err := os.WriteFile(path, []byte("one\ntwo \x1b[1mbold\x1b[0m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     string
		got      string
		wantFail bool
		wantMsg  []string
	}{
		{"equal", path, "one\ntwo \x1b[1mbold\x1b[0m\n", false, nil},
		{"changed line shows a quoted diff", path, "one\ntwo \x1b[2mdim\x1b[0m\n", true,
			[]string{path, "-two \\x1b[1mbold\\x1b[0m", "+two \\x1b[2mdim\\x1b[0m", "-update"}},
		{"trailing newline", path, "one\ntwo \x1b[1mbold\x1b[0m", true, []string{"No newline at end of file"}},
		{"missing file", filepath.Join(dir, "none.golden"), "x", true, []string{"none.golden", "-update to create it"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(func(tb testing.TB) { Golden(tb, tc.path, []byte(tc.got)) })
			if r.failed.Load() != tc.wantFail {
				t.Fatalf("failed = %v, want %v (%s)", r.failed.Load(), tc.wantFail, r.message())
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(r.message(), w) {
					t.Errorf("message lacks %q:\n%s", w, r.message())
				}
			}
		})
	}
}

func TestEventually(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var n atomic.Int32
		r := run(func(tb testing.TB) {
			Eventually(tb, time.Second, func() bool { return n.Add(1) == 10 }, "the %dth check", 10)
		})
		if r.failed.Load() {
			t.Fatalf("failed: %s", r.message())
		}
		if took := time.Since(start); took != 9*PollInterval {
			t.Errorf("held at the 10th check after %v, want %v", took, 9*PollInterval)
		}

		r = run(func(tb testing.TB) {
			Eventually(tb, time.Second, func() bool { return false }, "turn 100% done")
		})
		if r.message() != "timed out after 1s waiting for turn 100% done" {
			t.Errorf("a single message is taken as it is: %q", r.message())
		}

		start = time.Now()
		r = run(func(tb testing.TB) {
			Eventually(tb, time.Second, func() bool { return false }, "the %s", "sky to fall")
		})
		if !r.failed.Load() || r.message() != "timed out after 1s waiting for the sky to fall" {
			t.Errorf("failed = %v, message %q", r.failed.Load(), r.message())
		}
		if took := time.Since(start); took < time.Second || took > time.Second+PollInterval {
			t.Errorf("gave up after %v, want 1s", took)
		}
	})
}

func TestRecv(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan int, 3)
		go func() {
			time.Sleep(500 * time.Millisecond)
			ch <- 1
			ch <- 2
			ch <- 3
			close(ch)
		}()
		var got int
		r := run(func(tb testing.TB) { got = Recv(tb, ch, time.Second, "the first value") })
		if r.failed.Load() || got != 1 {
			t.Fatalf("got %d, failed %v: %s", got, r.failed.Load(), r.message())
		}
		for _, want := range []int{2, 3} {
			if got := Recv(t, ch, time.Second, "value %d", want); got != want {
				t.Fatalf("got %d, want %d", got, want)
			}
		}
		r = run(func(tb testing.TB) { Recv(tb, ch, time.Second, "more") })
		if r.message() != "channel closed while waiting for more" {
			t.Errorf("closed channel: %q", r.message())
		}
		start := time.Now()
		r = run(func(tb testing.TB) { Recv(tb, make(chan int), 2*time.Second, "a value on %s", "an idle channel") })
		if r.message() != "timed out after 2s waiting for a value on an idle channel" || time.Since(start) != 2*time.Second {
			t.Errorf("idle channel: %q after %v", r.message(), time.Since(start))
		}
	})
}

func TestWaitScreen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		frames := []string{"loading", "Question 1", "Question 1\nTime left 5:00"}
		i := 0
		screen := func() string { s := frames[min(i, len(frames)-1)]; i++; return s }
		var got string
		r := run(func(tb testing.TB) { got = WaitScreen(tb, time.Second, screen, "start", "Question 1", "Time left") })
		if r.failed.Load() || got != frames[2] {
			t.Fatalf("got %q: %s", got, r.message())
		}
		r = run(func(tb testing.TB) { WaitScreen(tb, time.Second, screen, "finish", "Question 1", "Thank you") })
		for _, w := range []string{"finish:", `"Thank you"`, "Time left 5:00"} {
			if !strings.Contains(r.message(), w) {
				t.Errorf("message lacks %q: %s", w, r.message())
			}
		}
	})
}

func TestSkipIfShort(t *testing.T) {
	r := &skipRecorder{}
	done := make(chan struct{})
	go func() { defer close(done); SkipIfShort(r, "espeak-ng") }()
	<-done
	if r.skipped != testing.Short() {
		t.Errorf("skipped = %v under -short = %v", r.skipped, testing.Short())
	}
	if r.skipped && r.msg != "-short: this test needs espeak-ng (make test runs it)" {
		t.Errorf("skip message %q", r.msg)
	}
}

type skipRecorder struct {
	testing.TB
	skipped bool
	msg     string
}

func (r *skipRecorder) Helper() {}
func (r *skipRecorder) Skipf(format string, args ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestLoggerStopsWhenTheTestEnds(t *testing.T) {
	var log *slog.Logger
	t.Run("inner", func(t *testing.T) {
		log = Logger(t, slog.LevelInfo)
		log.Debug("not shown")
		log.Info("shown", "k", 1)
	})
	log.Info("after the end") // must not panic
}
