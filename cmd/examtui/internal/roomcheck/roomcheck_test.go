package roomcheck_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/roomcheck"
	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/offline"
)

// script writes a candidate script next to a copy of the example exam and loads it.
func script(t *testing.T, body string) *headless.Script {
	t.Helper()
	dir := t.TempDir()
	spec, err := examples.FS.ReadFile("hotel-breakfast.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hotel-breakfast.yaml"), spec, 0o600); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "script.yaml")
	if err := os.WriteFile(p, []byte("spec: hotel-breakfast.yaml\nexaminer: offline\n"+body), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := headless.LoadScript(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hopts() headless.Options { return headless.Options{NewExaminer: hoptsExaminer} }

func hoptsExaminer(string) (runtime.Examiner, []runtime.Option, error) {
	ex, err := offline.New()
	return ex, nil, err
}

// TestRunDeadServer points the harness at a server that accepts connections and never
// answers: the run must end with a transport failure within the reply timeout, reported in
// the opening's timeout phase, instead of hanging.
func TestRunDeadServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	s := script(t, "turns:\n  - say: \"Hello, I'm Priya and I'm on the hospitality management course.\"\n")
	const timeout = 3 * time.Second
	start := time.Now()
	res, err := roomcheck.Run(context.Background(), s, hopts(), roomcheck.Options{URL: "ws://" + ln.Addr().String(), APIKey: "k",
		APISecret: strings.Repeat("s", 32), RecordDir: t.TempDir(), ReplyTimeout: timeout})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("Run: %v (a dead server is a failed run, not an error)", err)
	}
	if took > timeout+2*time.Second {
		t.Errorf("the run took %v with a %v reply timeout", took, timeout)
	}
	if res.Passed || res.Voice == nil || res.Voice.Opening == nil || res.Voice.Opening.Timeout == nil ||
		res.Voice.Opening.Timeout.Phase != headless.PhaseTransport {
		t.Fatalf("result = %+v, voice %+v", res, res.Voice)
	}
}

// failAfter is a sink that runs fn once, at the first candidate transcript.
type failAfter struct {
	once sync.Once
	fn   func()
}

func (f *failAfter) Publish(ev runtime.Event) error {
	if p, err := ev.Decode(); err == nil {
		if seg, ok := p.(*runtime.TranscriptSegmentPayload); ok && seg.Speaker == "candidate" {
			f.once.Do(func() { go f.fn() })
		}
	}
	return nil
}

// TestRunServerDiesMidRun kills the LiveKit server after the candidate's first line: the
// reply never comes, and the harness reports a first-chunk timeout within the reply timeout
// whose cause is the transport's failure (the candidate's connection down), in the report.
func TestRunServerDiesMidRun(t *testing.T) {
	srv := lktest.Start(t)
	s := script(t, "turns:\n  - say: \"Hello, I'm Priya and I'm on the hospitality management course.\"\n  - say: \"Sorry, could you repeat the question?\"\n")
	o := hopts()
	o.Sink = &failAfter{fn: srv.Crash}
	const timeout = 5 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := roomcheck.Run(ctx, s, o, roomcheck.Options{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.Secret,
		RecordDir: t.TempDir(), ReplyTimeout: timeout, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Voice
	if res.Passed || v == nil || len(v.Replies) == 0 {
		t.Fatalf("result %+v", res)
	}
	last := v.Replies[len(v.Replies)-1]
	if last.Timeout == nil || last.Timeout.Phase != headless.PhaseFirstChunk || last.Timeout.AfterMs > float64((timeout+2*time.Second).Milliseconds()) ||
		!strings.Contains(last.Timeout.Cause, "connection") || !strings.Contains(last.Error, "cause: "+last.Timeout.Cause) {
		t.Fatalf("last reply %+v (timeout %+v), want a first-chunk timeout within %v caused by the transport", last, last.Timeout, timeout)
	}
	if text := reportText(t, res); !strings.Contains(text, "cause: "+last.Timeout.Cause) {
		t.Errorf("the report does not show the cause:\n%s", text)
	}
	t.Logf("reply %d: %s after %.0f ms, cause %s", last.Step, last.Timeout.Phase, last.Timeout.AfterMs, last.Timeout.Cause)
}

// TestRunSpokenPauseAndBargeIn speaks through a real room: a line with a two-second pause
// (the bot's endpointing ends the turn inside it, so the examiner cuts in: the harness must
// report the cut-off and fail the run, since the script does not expect it), then a line
// said over the examiner's reply (barge-in, measured).
func TestRunSpokenPauseAndBargeIn(t *testing.T) {
	srv := lktest.Start(t)
	s := script(t, `turns:
  - say: "Hello, I'm Priya and I'm on the hospitality management course."
  - say: "Sorry, could you repeat the question?"
  - interrupt: "We could open a second buffet line, or another way is a grab-and-go counter."
  - say: "Most guests at that time [pause 2s] are business travellers who are in a hurry."
`)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o := hopts()
	sink := &eventSink{}
	o.Sink = sink
	res, err := roomcheck.Run(ctx, s, o, roomcheck.Options{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.Secret,
		RecordDir: t.TempDir(), Spoken: true, ReplyTimeout: 20 * time.Second, Logger: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Voice
	if v == nil || len(v.Replies) != 4 {
		t.Fatalf("voice report %+v (step errors %v)", v, res.StepErrors)
	}
	for _, rp := range v.Replies {
		t.Logf("step %d %s: latency %.0f ms ttfb %.0f ms early %v words %q cut-offs %+v barge-in %+v timeline %+v",
			rp.Step, rp.Kind, rp.LatencyMs, rp.TTFBMs, rp.StartedEarly, rp.Words, rp.CutOffs, rp.BargeIn, rp.Timeline)
		if rp.Error != "" {
			t.Errorf("step %d: %s", rp.Step, rp.Error)
		}
		if rp.Kind != "interrupt" && (rp.Words == "" || len(rp.Timeline) < 3) {
			t.Errorf("step %d: words %q, timeline %+v", rp.Step, rp.Words, rp.Timeline)
		}
	}
	b := v.Replies[2].BargeIn
	if b == nil || b.LimitMs != float64(roomcheck.SpokenBargeInLimit.Milliseconds()) || b.StoppedAfterMs < 0 || b.StoppedAfterMs > 5000 || b.Method != headless.InterruptTiming {
		t.Errorf("barge-in %+v", b)
	}
	// The bot told the controller of the barge-in, with what the candidate heard of the line.
	if cuts := sink.recoveries(runtime.RecoveryBargeIn); len(cuts) == 0 {
		t.Error("no barge_in recovery: the controller was not told the candidate cut the examiner short")
	} else {
		t.Logf("barge_in recovery: %s", cuts[0].Detail)
	}
	// Each spoken line is its own WAV: the line's voiced part as it was sent. On the clock its
	// span can be longer than its audio: a loaded machine's track sends slower than real time.
	for _, rp := range v.Replies {
		c := rp.Candidate
		if c == nil || c.WAV == "" || c.Transcript != headless.SpokenText(rp.Said) {
			t.Errorf("step %d: candidate clip %+v", rp.Step, c)
			continue
		}
		length, rms := soxLength(t, c.WAV)
		t.Logf("step %d: candidate clip %.0f–%.0f ms, %.2f s rms %.3f", rp.Step, c.StartMs, c.EndMs, length, rms)
		if d := (c.EndMs - c.StartMs) / 1000; length < 0.75*d || length > d+0.05 || rms < 0.02 {
			t.Errorf("step %d: candidate clip %.2f s rms %.3f for a %.2f s span", rp.Step, length, rms, d)
		}
	}
	pause := v.Replies[3]
	if len(pause.CutOffs) == 0 || v.CutOffs == 0 {
		t.Fatalf("no cut-off reported for a 2 s pause under a 500 ms endpointer: %+v", pause)
	}
	found := false
	for _, f := range res.Failures {
		found = found || strings.Contains(f.Expectation, "no cut-off")
	}
	if res.Passed || !found {
		t.Errorf("an unexpected cut-off must fail the run: %+v", res.Failures)
	}
}

// testLog writes the harness's log to a file kept with the test's temporary files and
// prints its tail when the test fails.
func testLog(t *testing.T) *slog.Logger {
	p := filepath.Join(t.TempDir(), "harness.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Close()
		if t.Failed() {
			b, _ := os.ReadFile(p)
			lines := strings.Split(string(b), "\n")
			t.Logf("harness log tail:\n%s", strings.Join(lines[max(0, len(lines)-60):], "\n"))
		}
	})
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// reportText is the run's text report.
func reportText(t *testing.T, res *headless.Result) string {
	t.Helper()
	var b strings.Builder
	if err := headless.WriteText(&b, res); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
