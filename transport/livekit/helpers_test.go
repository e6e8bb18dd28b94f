package livekit_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/offline"
	"github.com/examtui/examtui/transport/livekit"
)

// testLogger writes the package's and the SDK's logs to the test log, so a failing test shows
// what the connection did.
func testLogger(t testing.TB) *slog.Logger {
	level := slog.LevelInfo
	if os.Getenv("EXAMTUI_LIVEKIT_DEBUG") != "" {
		level = slog.LevelDebug
	}
	return testutil.Logger(t, level)
}

func TestMain(m *testing.M) {
	if os.Getenv(candidateProcessEnv) != "" {
		os.Exit(runCandidateProcess()) // presence_test.go: a candidate to kill
	}
	// The SDK's process-wide logger (WebRTC internals) outlives any one test.
	livekit.SetSDKLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	os.Exit(m.Run())
}

// dialClient joins identity with role to srv's room, logging to the test, and closes it when the
// test ends. It does not wait for the bot (exam.dial does).
func dialClient(t *testing.T, srv *lktest.Server, identity string, role livekit.Role, opts ...livekit.ClientOption) *livekit.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opts = append([]livekit.ClientOption{livekit.WithClientLogger(testLogger(t))}, opts...)
	c, err := livekit.Dial(ctx, srv.URL, srv.Token(identity, role), opts...)
	if err != nil {
		t.Fatalf("%s join: %v", identity, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// liveController is the real controller with the offline examiner on the example exam, taking
// its input from a room; its events go to subs and to whatever subscribes to the returned
// fanout (exam.serve's bot).
func liveController(t *testing.T, session string, subs ...runtime.Subscriber) (*runtime.Controller, *runtime.Fanout) {
	t.Helper()
	fan := runtime.NewFanout(subs...)
	ex, err := offline.New()
	if err != nil {
		t.Fatal(err)
	}
	ctrl, err := runtime.NewController(compileExample(t), ex, runtime.WithSink(fan), runtime.WithSessionID(session),
		runtime.WithInputSource(runtime.SourceRoom), runtime.WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctrl.Close() })
	return ctrl, fan
}

// tone returns d of a sine at hz, 16 kHz mono.
func tone(hz float64, d time.Duration, amp float64) []int16 {
	n := int(d.Seconds() * 16000)
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(amp * math.Sin(2*math.Pi*hz*float64(i)/16000))
	}
	return s
}

// sendTone writes a 440 Hz tone to c's microphone in real time, 20 ms at a time, until ctx
// ends.
func sendTone(ctx context.Context, c *livekit.Client) {
	chunk := tone(440, 20*time.Millisecond, 8000)
	testutil.Every(ctx, 20*time.Millisecond, func() { _ = c.Voice().Write(chunk) })
}

// awaitLoud reads frames until one is loud (RMS above 1000: a tone or speech, not silence);
// false if ctx ends first.
func awaitLoud(ctx context.Context, frames <-chan livekit.AudioFrame) bool {
	for {
		select {
		case f := <-frames:
			if audio.RMS(f.Samples) > 1000 {
				return true
			}
		case <-ctx.Done():
			return false
		}
	}
}

// onAudio calls f with every frame c decodes, in order, until ctx ends.
func onAudio(ctx context.Context, c *livekit.Client, f func(livekit.AudioFrame)) {
	for {
		select {
		case <-ctx.Done():
			return
		case fr := <-c.Audio():
			f(fr)
		}
	}
}

// zeroCrossingHz estimates the dominant frequency of a tone.
func zeroCrossingHz(s []int16, rate int) float64 {
	crossings := 0
	for i := 1; i < len(s); i++ {
		if (s[i-1] < 0) != (s[i] < 0) {
			crossings++
		}
	}
	return float64(crossings) / 2 / (float64(len(s)) / float64(rate))
}

// voicedDuration is how much of s lies in 20 ms windows louder than threshold RMS.
func voicedDuration(s []int16, rate int, threshold float64) time.Duration {
	win := rate / 50
	voiced := 0
	for i := 0; i+win <= len(s); i += win {
		if audio.RMS(s[i:i+win]) > threshold {
			voiced++
		}
	}
	return time.Duration(voiced) * 20 * time.Millisecond
}

// speech synthesises text with espeak-ng and resamples it with sox to 16 kHz mono.
func speech(t testing.TB, text string) []int16 {
	t.Helper()
	s, err := synth(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func synth(text string) ([]int16, error) {
	espeak := exec.Command("espeak-ng", "-v", "en-us", "--stdout", text)
	sox := exec.Command("sox", "-t", "wav", "-", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", "-")
	pipe, err := espeak.StdoutPipe()
	if err != nil {
		return nil, err
	}
	sox.Stdin = pipe
	var out, errb bytes.Buffer
	sox.Stdout, sox.Stderr = &out, &errb
	if err := sox.Start(); err != nil {
		return nil, fmt.Errorf("sox: %w", err)
	}
	if err := espeak.Run(); err != nil {
		return nil, fmt.Errorf("espeak-ng: %w", err)
	}
	if err := sox.Wait(); err != nil {
		return nil, fmt.Errorf("sox: %w: %s", err, errb.String())
	}
	s := make([]int16, out.Len()/2)
	if err := binary.Read(&out, binary.LittleEndian, s); err != nil {
		return nil, err
	}
	if len(s) < 8000 {
		return nil, fmt.Errorf("espeak-ng produced only %d samples for %q", len(s), text)
	}
	return s, nil
}

// collect reads events until want says it has enough or d passes.
func collect(ctx context.Context, ch <-chan runtime.Event, d time.Duration, done func([]runtime.Event) bool) []runtime.Event {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var got []runtime.Event
	for !done(got) {
		select {
		case ev := <-ch:
			got = append(got, ev)
		case <-ctx.Done():
			return got
		}
	}
	return got
}
