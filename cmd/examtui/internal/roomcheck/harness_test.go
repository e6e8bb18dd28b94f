package roomcheck_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/roomcheck"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
)

// eventSink keeps the controller's events, to see what the runtime made of an interruption.
type eventSink struct {
	mu  sync.Mutex
	evs []runtime.Event
}

func (s *eventSink) Publish(ev runtime.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evs = append(s.evs, ev)
	return nil
}

func (s *eventSink) recoveries(kind runtime.RecoveryKind) []*runtime.RecoveryPayload {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*runtime.RecoveryPayload
	for _, ev := range s.evs {
		if p, err := ev.Decode(); err == nil {
			if r, ok := p.(*runtime.RecoveryPayload); ok && r.Kind == kind {
				out = append(out, r)
			}
		}
	}
	return out
}

// soxLength is a WAV's length in seconds and its RMS amplitude, as sox measures them.
func soxLength(t *testing.T, path string) (length, rms float64) {
	t.Helper()
	out, err := exec.Command("sox", path, "-n", "stat").CombinedOutput()
	if err != nil {
		t.Fatalf("sox %s: %v\n%s", path, err, out)
	}
	field := func(name string) float64 {
		m := regexp.MustCompile(regexp.QuoteMeta(name) + `:\s+([0-9.eE+-]+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("sox %s: no %q in\n%s", path, name, out)
		}
		v, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	return field("Length (seconds)"), field("RMS     amplitude")
}

// TestRunTypedInterruptClipsAndEvents runs a typed script with an interrupt step through a
// real room. The interrupt goes out as the native stop message: the bot must cut the
// examiner's line within the barge-in limit and the controller record it as a barge-in; every
// reply has its examiner audio in its own WAV (sox: as long as the reply, voiced) with its
// words, and the candidate's typed lines their times and text; the --events stream has the
// hooks in the order they happened; the report has the capability line.
func TestRunTypedInterruptClipsAndEvents(t *testing.T) {
	srv := lktest.Start(t)
	s := script(t, `turns:
  - say: "Hello, I'm Priya and I'm on the hospitality management course."
  - say: "Sorry, could you repeat the question?"
  - interrupt: "We could open a second buffet line, or another way is a grab-and-go counter."
`)
	o := hopts()
	sink := &eventSink{}
	o.Sink = sink
	dir := t.TempDir()
	evPath := filepath.Join(dir, "events.jsonl")
	evFile, err := os.Create(evPath)
	if err != nil {
		t.Fatal(err)
	}
	defer evFile.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := roomcheck.Run(ctx, s, o, roomcheck.Options{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.Secret,
		// A longer tail than the default: on the loaded shared machine the gap while the bot
		// synthesises its next sentence can pass 600 ms and end a reply early (voice.md).
		RecordDir: dir, ReplyTimeout: 20 * time.Second, TailSilence: 1500 * time.Millisecond, Logger: testLog(t), Events: evFile})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Voice
	if len(res.StepErrors) > 0 || v == nil || len(v.Replies) != 3 {
		t.Fatalf("step errors %v, voice %+v", res.StepErrors, v)
	}
	if v.Transport != "livekit" || !v.NativeInterrupt || v.Interruption != headless.InterruptNative {
		t.Errorf("capabilities: transport %q native %v interruption %q", v.Transport, v.NativeInterrupt, v.Interruption)
	}
	// The bot honours the stop within tens of milliseconds; the candidate hears it stop once
	// the data channel and the audio in flight have caught up, 40–80 ms on a quiet machine and
	// up to about 400 ms on the shared one under -race. An examiner that ignores the stop goes
	// on to the end of its line, seconds more (4.9 s measured).
	b := v.Replies[2].BargeIn
	if b == nil || b.Method != headless.InterruptNative || b.StoppedAfterMs > 1500 {
		t.Fatalf("barge-in %+v: the stop message must cut the examiner", b)
	}
	t.Logf("native interrupt: the examiner stopped %.0f ms after the stop message", b.StoppedAfterMs)
	// The stop cut a line (the examiner was heard after it), and the controller recorded it.
	cuts := sink.recoveries(runtime.RecoveryBargeIn)
	if len(cuts) > 1 || (len(cuts) == 0 && b.StoppedAfterMs > 0) {
		t.Errorf("barge_in recoveries %+v, want the one the stop caused", cuts)
	}

	replies := append([]headless.ReplyTiming{*v.Opening}, v.Replies...)
	for _, rp := range replies {
		if rp.Error != "" {
			t.Errorf("step %d: %s", rp.Step, rp.Error)
			continue
		}
		if rp.Kind != "opening" {
			c := rp.Candidate
			if c == nil || c.WAV != "" || c.Transcript != rp.Said || c.EndMs < c.StartMs {
				t.Errorf("step %d: candidate clip %+v (a typed line: times and text, no audio)", rp.Step, c)
			}
		}
		if rp.Step == 2 { // answered by the interruption: only its first audio is measured
			continue
		}
		e := rp.Examiner
		if e == nil || e.WAV == "" || e.Transcript == "" || e.Transcript != rp.Words {
			t.Errorf("step %d: examiner clip %+v (words %q)", rp.Step, e, rp.Words)
			continue
		}
		length, rms := soxLength(t, e.WAV)
		t.Logf("step %d %s: reply %.0f ms, clip %.0f–%.0f ms, %s %.2f s rms %.3f", rp.Step, rp.Kind, rp.AudioMs, e.StartMs, e.EndMs, filepath.Base(e.WAV), length, rms)
		// The clip holds the audio as received: under load the bot's track sends late, with
		// stretches of the clock that carry no audio (it never drops a sample), so the clip may
		// be a little shorter than the reply's span.
		if length > rp.AudioMs/1000+0.1 || length < 0.75*rp.AudioMs/1000 || math.Abs((e.EndMs-e.StartMs)-rp.AudioMs) > 1 {
			t.Errorf("step %d: clip %.2f s (%.0f–%.0f ms) for a %.0f ms reply", rp.Step, length, e.StartMs, e.EndMs, rp.AudioMs)
		}
		if rms < 0.02 {
			t.Errorf("step %d: clip rms %.3f: not the examiner's speech", rp.Step, rms)
		}
	}

	if err := evFile.Sync(); err != nil {
		t.Fatal(err)
	}
	var seen []string
	last := -1.0
	f, err := os.Open(evPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev roomcheck.VoiceEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("events line %q: %v", sc.Text(), err)
		}
		seen = append(seen, strconv.Itoa(ev.Step)+":"+ev.Event)
		if ev.Event == roomcheck.EventRunEnded && ev.AtMs < last {
			t.Errorf("run_ended at %.0f ms before the last event at %.0f ms", ev.AtMs, last)
		}
		last = max(last, ev.AtMs)
	}
	got := strings.Join(seen, " ")
	want := []string{"0:run_started", "0:reply_first_chunk", "0:reply_ended", "1:turn_started", "1:turn_ended", "1:reply_first_chunk",
		"1:reply_ended", "2:turn_started", "2:turn_ended", "2:reply_first_chunk", "3:turn_started", "3:interrupt_sent", "3:barge_in",
		"3:turn_ended", "3:reply_first_chunk", "3:reply_ended", "0:run_ended"}
	if !containsInOrder(seen, want) {
		t.Errorf("voice events\n  %s\nwant in this order\n  %s", got, strings.Join(want, " "))
	}
	if v.EventsWritten != len(seen) || v.EventsFailed != 0 {
		t.Errorf("report counts %d written, %d failed; the file has %d", v.EventsWritten, v.EventsFailed, len(seen))
	}
	text := reportText(t, res)
	for _, w := range []string{"transport:  livekit; native interrupt: yes; interrupt steps: native", "barge-in: ", "after the stop message",
		"examiner", filepath.Base(replies[1].Examiner.WAV), "(typed, no audio)"} {
		if !strings.Contains(text, w) {
			t.Errorf("report lacks %q:\n%s", w, text)
		}
	}
}

// containsInOrder reports whether want appears in got as a subsequence.
func containsInOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestRunEventsWriterFails writes the voice events to /dev/full, where every write fails
// (ENOSPC): the run must pass as it would without --events, the failure be logged, and the
// report count the lines not written.
func TestRunEventsWriterFails(t *testing.T) {
	srv := lktest.Start(t)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	s := script(t, "turns:\n  - say: \"Hello, I'm Priya and I'm on the hospitality management course.\"\n")
	var logBuf testutil.SyncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := roomcheck.Run(ctx, s, hopts(), roomcheck.Options{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.Secret,
		RecordDir: t.TempDir(), ReplyTimeout: 20 * time.Second, Events: full,
		Logger: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatalf("Run: %v (a failing events writer must not break the run)", err)
	}
	if !res.Passed || len(res.Voice.Replies) != 1 || res.Voice.Replies[0].Error != "" {
		t.Fatalf("result %+v, failures %+v", res, res.Failures)
	}
	if res.Voice.EventsWritten != 0 || res.Voice.EventsFailed < 5 {
		t.Errorf("events written %d, failed %d", res.Voice.EventsWritten, res.Voice.EventsFailed)
	}
	if log := logBuf.String(); !strings.Contains(log, "voice event not written; the run goes on") || !strings.Contains(log, "no space left on device") {
		t.Errorf("log does not tell of the failing writer:\n%s", log)
	}
	if text := reportText(t, res); !strings.Contains(text, "NOT written") {
		t.Errorf("report does not tell of the failing writer:\n%s", text)
	}
}
