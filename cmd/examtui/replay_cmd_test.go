package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// recordHeadless records the crash script with the real binary and returns the stored events.
func recordHeadless(t *testing.T, bin, dir string) []runtime.Event {
	t.Helper()
	evs, _ := runCrashScript(t, "recording", bin, dir)
	return loadChecked(t, dir, evs[0].SessionID, sessions.StatusCompleted, evs)
}

// TestReplayConsoleInTmux replays a stored session in the real binary's console, in a real
// terminal: paused at the start, one step, played out at 16×, quit.
func TestReplayConsoleInTmux(t *testing.T) {
	bin := examtuiBinary(t)
	dir := t.TempDir()
	stored := recordHeadless(t, bin, dir)
	id, n := stored[0].SessionID, len(stored)

	tt, stderrPath, rcPath := startInTmux(t, bin, dir, "replay", id[:6], "--paused", "--speed", "16", "--gap-cap", "5ms")
	tt.waitScreen("paused at the start", fmt.Sprintf("replay 16× ⏸ event 0 of %d", n))
	tt.keys("n")
	tt.waitScreen("one step", fmt.Sprintf("event 1 of %d", n), "scaffolding")
	tt.keys("n")
	tt.keys("Right")
	tt.waitScreen("three steps", fmt.Sprintf("event 3 of %d", n))
	tt.keys("-")
	tt.waitScreen("slower", fmt.Sprintf("replay 8× ⏸ event 3 of %d", n))
	tt.keys("+", "Space")
	screen := tt.waitScreen("played out", fmt.Sprintf("replay done event %d of %d", n, n), "completed", "Candidate: That raises the labour cost")
	if !strings.Contains(screen, "scenario-staff-rota") {
		t.Errorf("the played-out console does not show the last assessment node:\n%s", screen)
	}
	tt.keys("q")
	if code := waitExit(t, rcPath); code != 0 {
		t.Fatalf("replay exited %d; stderr: %s", code, readFileString(t, stderrPath))
	}

	// --from shows the events before it at once and plays from there.
	tt2, _, rcPath2 := startInTmux(t, bin, dir, "replay", id, "--paused", "--from", "40")
	tt2.waitScreen("from seq 40", fmt.Sprintf("replay 1× ⏸ event 39 of %d", n), "Candidate: Most guests at that time")
	tt2.keys("n")
	tt2.waitScreen("step from 40", fmt.Sprintf("event 40 of %d", n))
	tt2.keys("q")
	if code := waitExit(t, rcPath2); code != 0 {
		t.Fatalf("replay --from exited %d", code)
	}
}

// TestReplayJSON replays through the command in-process: the stream equals the stored one,
// from any seq; bad flags are refused.
func TestReplayJSON(t *testing.T) {
	dir, id := recordRehearsal(t)
	st, err := sessions.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.LoadEvents(context.Background(), id)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []int64{1, 7, int64(len(stored))} {
		out, errOut, err := runCmd(t, "", "--data-dir", dir, "replay", id[:5], "--json", "--speed", "16", "--gap-cap", "1ms",
			"--from", fmt.Sprint(from))
		if err != nil {
			t.Fatalf("replay --from %d: %v %s", from, err, errOut)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != len(stored)-int(from)+1 {
			t.Fatalf("--from %d: %d lines for %d stored events", from, len(lines), len(stored))
		}
		for i, l := range lines {
			var ev runtime.Event
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatal(err)
			}
			want := stored[int(from)-1+i]
			if ev.Seq != want.Seq || ev.Event != want.Event || !sameJSON(ev.Payload, want.Payload) || !ev.Timestamp.Equal(want.Timestamp) {
				t.Fatalf("--from %d: line %d is seq %d %s, want seq %d %s", from, i, ev.Seq, ev.Event, want.Seq, want.Event)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--json", "--paused"}, "--paused needs the console"},
		{[]string{"--json", "--from", "0"}, "seq starts at 1"},
		{[]string{"--json", "--speed", "32"}, "speed 32"},
		{[]string{"--from", "9999"}, fmt.Sprintf("has %d events", len(stored))},
	} {
		_, _, err := runCmd(t, "", append([]string{"--data-dir", dir, "replay", id}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("replay %v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

func readFileString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
