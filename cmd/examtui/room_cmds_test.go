package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/cmd/examtui/internal/roomcheck"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/tui"
)

// TestTestCommandThroughRoom runs the example script through a real LiveKit server with
// `examtui test --room-url`: the exam bot and a simulated candidate meet in a room, the
// candidate types (or speaks) each line and measures the examiner's spoken replies, and the
// script's expectations hold exactly as in a local run.
func TestTestCommandThroughRoom(t *testing.T) {
	srv := lktest.Start(t)
	cases := []struct {
		name  string
		extra []string
		mode  string
	}{
		{"typed", nil, "typed"},
		{"spoken", []string{"--audio"}, "audio"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// The typed case records where `test --help` says --record defaults to.
			rec := filepath.Join(dir, "rec")
			evPath := filepath.Join(dir, "events.jsonl")
			args := []string{"test", "hotel-rehearsal.yaml", "--room-url", srv.URL, "--api-key", srv.APIKey,
				"--api-secret", srv.Secret, "--data-dir", dir, "--log-file", filepath.Join(dir, "log"), "--json", "--events", evPath}
			if tc.mode == "audio" {
				args = append(args, "--record", rec)
			}
			args = append(args, tc.extra...)
			out, errOut, err := runCmd(t, "", args...)
			if err != nil {
				log, _ := os.ReadFile(filepath.Join(dir, "log"))
				t.Fatalf("examtui test --room-url: %v\nstderr: %s\nstdout: %s\nlog tail: %s", err, errOut, out, tail(string(log), 40))
			}
			var results []headless.Result
			if err := json.Unmarshal([]byte(out), &results); err != nil {
				t.Fatalf("output is not JSON results: %v\n%s", err, out)
			}
			if len(results) != 1 || !results[0].Passed {
				t.Fatalf("results = %+v", results)
			}
			r := results[0]
			if r.State != "completed" || len(r.Turns) != 6 {
				t.Errorf("state %s after %d turns", r.State, len(r.Turns))
			}
			v := r.Voice
			if v == nil || v.Mode != tc.mode || len(v.Replies) != 6 {
				t.Fatalf("voice report = %+v", v)
			}
			for _, rp := range v.Replies {
				if rp.Error != "" || rp.LatencyMs <= 0 || rp.AudioMs < 500 || rp.Capped {
					t.Errorf("reply %+v", rp)
				}
			}
			if v.P50Ms <= 0 || v.P95Ms < v.P50Ms || v.CandidateLeaks != 0 {
				t.Errorf("p50 %.0f p95 %.0f leaks %d", v.P50Ms, v.P95Ms, v.CandidateLeaks)
			}
			if tc.mode == "audio" {
				// Every turn was heard through VAD, endpointing and recognition, not typed.
				for _, turn := range r.Turns {
					if turn.Said == "" {
						t.Errorf("turn %d heard nothing", turn.Turn)
					}
				}
			}
			wantDir := rec
			if tc.mode != "audio" {
				wantDir = filepath.Join(dir, "sessions", r.SessionID)
			}
			if filepath.Dir(v.ExaminerWAV) != wantDir {
				t.Errorf("recorded in %s, want %s", filepath.Dir(v.ExaminerWAV), wantDir)
			}
			// Both sides were recorded: the examiner's track holds speech, and in audio mode so
			// does the candidate's.
			for _, c := range []struct {
				path   string
				voiced bool
			}{{v.ExaminerWAV, true}, {v.CandidateWAV, tc.mode == "audio"}} {
				clip, err := audio.ReadWAVFile(c.path)
				if err != nil {
					t.Fatal(err)
				}
				if got := loudSeconds(clip); (got > 1) != c.voiced {
					t.Errorf("%s: %.1f s of sound", c.path, got)
				}
			}
			// Each reply's examiner audio is its own clip next to the recordings, and the voice
			// events were written as JSON Lines, one reply_first_chunk per reply.
			for _, rp := range v.Replies {
				if rp.Examiner == nil || filepath.Dir(rp.Examiner.WAV) != filepath.Join(wantDir, "replies") || rp.Candidate == nil {
					t.Errorf("step %d: clips %+v, %+v", rp.Step, rp.Candidate, rp.Examiner)
				} else if _, err := os.Stat(rp.Examiner.WAV); err != nil {
					t.Error(err)
				}
			}
			evs, err := os.ReadFile(evPath)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(evs)), "\n")
			firsts := 0
			for _, l := range lines {
				var ev roomcheck.VoiceEvent
				if err := json.Unmarshal([]byte(l), &ev); err != nil {
					t.Fatalf("events line %q: %v", l, err)
				}
				if ev.Event == roomcheck.EventReplyFirstChunk {
					firsts++
				}
			}
			if firsts != len(v.Replies)+1 || v.EventsWritten != len(lines) || v.Transport != "livekit" {
				t.Errorf("%d first chunks in %d events (report: %d written), transport %q; want one per reply and the opening", firsts, len(lines), v.EventsWritten, v.Transport)
			}
			// The stored session keeps the rule: every candidate segment with words is observed
			// once or recorded not_assessed with its reason.
			st := apptest.OpenStore(t, dir)
			stored, err := st.LoadEvents(context.Background(), r.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			if err := runtimetest.CheckAssessedOnce(stored); err != nil {
				t.Error(err)
			}
			t.Logf("%s: p50 %.0f ms, p95 %.0f ms over %d replies", tc.name, v.P50Ms, v.P95Ms, len(v.Replies))
		})
	}
}

func loudSeconds(c audio.Clip) float64 {
	win := c.Rate / 50
	n := 0
	for i := 0; i+win <= len(c.Samples); i += win {
		var sum float64
		for _, s := range c.Samples[i : i+win] {
			sum += float64(s) * float64(s)
		}
		if math.Sqrt(sum/float64(win)) > voicedRMS {
			n++
		}
	}
	return float64(n) / 50
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestRunRoomHeadless runs `examtui run demo --room R --headless --json` against a real server:
// the bot waits for the candidate, who types the rehearsal's answers over the data channel;
// every committed event is printed as a JSON line, and the command exits 0 when the exam
// completes.
func TestRunRoomHeadless(t *testing.T) {
	srv := lktest.Start(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type result struct {
		out, errOut string
		err         error
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, err := runCmdContext(ctx, "", "run", "demo", "--room", srv.Room, "--headless", "--json", "--examiner", "offline",
			"--url", srv.URL, "--api-key", srv.APIKey, "--api-secret", srv.Secret, "--tts", "none", "--stt", "none",
			"--data-dir", dir, "--log-file", filepath.Join(dir, "log"))
		done <- result{out, errOut, err}
	}()

	// The candidate comes late: the session's duration must not count the wait.
	const wait = 3 * time.Second
	time.Sleep(wait)
	arrived := time.Now()
	cand := apptest.DialBot(ctx, t, srv, "candidate-1", livekit.RoleCandidate)
	script := apptest.Rehearsal(t)
	// Each answer is sent once the examiner has spoken since the previous one.
	var lastSpoken int64
	awaitSpoken := func() {
		t.Helper()
		for {
			select {
			case ev := <-cand.Events():
				if ev.Event == runtime.EventSpoken && ev.Seq > lastSpoken {
					lastSpoken = ev.Seq
					return
				}
			case r := <-done:
				t.Fatalf("run ended early: %v\n%s", r.err, r.errOut)
			case <-ctx.Done():
				t.Fatal("no examiner line")
			}
		}
	}
	awaitSpoken()
	for _, line := range script.Said() {
		if err := cand.SendCandidateText(ctx, line, 1); err != nil {
			t.Fatal(err)
		}
		awaitSpoken()
	}
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		t.Fatal("run --room did not end after the exam completed")
	}
	if r.err != nil {
		t.Fatalf("run --room: %v\n%s", r.err, r.errOut)
	}
	var evs []runtime.Event
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var ev runtime.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
	}
	if last := evs[len(evs)-1]; last.Event != runtime.EventExamCompleted || !strings.Contains(string(last.Payload), `"completed"`) {
		t.Errorf("last event %s %s", last.Event, last.Payload)
	}
	if !strings.Contains(r.errOut, "waiting for the candidate") || !strings.Contains(r.errOut, "completed") {
		t.Errorf("stderr: %q", r.errOut)
	}
	list, err := apptest.OpenStore(t, dir).List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions: %v %v", list, err)
	}
	sess := list[0]
	if sess.Candidate != "candidate-1" || sess.StartedAt.Before(arrived) || sess.StartedAt.After(evs[0].Timestamp) {
		t.Errorf("session started %v (candidate arrived %v, first event %v), candidate %q", sess.StartedAt, arrived, evs[0].Timestamp, sess.Candidate)
	}
	if d, span := sess.Duration(), evs[len(evs)-1].Timestamp.Sub(arrived); d > span {
		t.Errorf("duration %v counts the wait (exam took at most %v)", d, span)
	}
	out, _, err := runCmd(t, "", "--data-dir", dir, "sessions", "list")
	if err != nil || !strings.Contains(out, "candidate-1") {
		t.Errorf("sessions list does not show the candidate: %v\n%s", err, out)
	}
}

// TestOrderEvents holds events back until their predecessors arrive, for at most the wait; a gap
// that is never filled is reported (-1 below) as a security warning before what follows it.
func TestOrderEvents(t *testing.T) {
	cases := []struct {
		name string
		in   []int64
		want []int64
	}{
		{"in order", []int64{1, 2, 3}, []int64{1, 2, 3}},
		{"gap filled", []int64{1, 3, 4, 2, 5}, []int64{1, 2, 3, 4, 5}},
		{"duplicates dropped", []int64{1, 2, 2, 1, 3}, []int64{1, 2, 3}},
		{"out of band passes", []int64{0, 2, 0, 1}, []int64{0, 0, 1, 2}},
		{"gap never filled", []int64{1, 3, 4}, []int64{1, -1, 3, 4}},
		{"late start", []int64{5, 6}, []int64{-1, 5, 6}},
	}
	for _, tc := range cases {
		// In a synctest bubble the hold-back waits run on the bubble's clock: the test takes no
		// wall-clock time, and "no extra event" is checked after every timer has fired.
		t.Run(tc.name, func(t *testing.T) { synctest.Test(t, func(t *testing.T) { testOrderEvents(t, tc.in, tc.want) }) })
	}
}

func testOrderEvents(t *testing.T, in, want []int64) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inc := make(chan runtime.Event, len(in))
	for _, s := range in {
		inc <- runtime.Event{Seq: s, Event: runtime.EventSpoken}
	}
	out := app.OrderEvents(ctx, inc, 100*time.Millisecond)
	var got []int64
	timeout := time.After(5 * time.Second)
	for len(got) < len(want) {
		select {
		case e := <-out:
			if e.Event == runtime.EventSystemError && strings.Contains(string(e.Payload), runtime.CodeEventGap.String()) {
				got = append(got, -1)
				continue
			}
			got = append(got, e.Seq)
		case <-timeout:
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	time.Sleep(time.Second) // every hold-back timer has fired (bubble time: instant)
	synctest.Wait()
	select {
	case e := <-out:
		t.Fatalf("extra event %d after %v", e.Seq, got)
	default:
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestWatchConsoleBackend drives a real exam bot through the watch console's Backend: controls
// and instructions reach the controller with the examiner's identity; typed answers are
// refused.
func TestWatchConsoleBackend(t *testing.T) {
	srv := lktest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	x, rb := apptest.StartDemoBot(ctx, t, srv)
	c, err := dialWatch(ctx, watchOptions{creds: livekitCreds{url: srv.URL, key: srv.APIKey, secret: srv.Secret},
		room: srv.Room, identity: "examiner-console"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WaitBot(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, func() bool { return apptest.HasParticipant(rb.Room, "examiner-console") }, "the bot to see examiner-console")
	b := app.RemoteBackend(ctx, c)
	state := func() runtime.ExamState { return x.Controller.Snapshot().State }
	steps := []struct {
		name string
		do   func() error
		want func() bool
	}{
		{"pause", func() error { return b.Control(runtime.ControlPause) }, func() bool { return state() == runtime.StatePaused }},
		{"resume", func() error { return b.Control(runtime.ControlResume) }, func() bool { return state() == runtime.StateInProgress }},
		{"queued instruction", func() error { return b.Admin(runtime.AdminQueued, "Ask about the budget.") },
			func() bool { return x.Controller.Snapshot().QueuedAdmin == 1 }},
		{"end", func() error { return b.Control(runtime.ControlEnd) }, func() bool { return state() == runtime.StateAborted }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if !testutil.Poll(10*time.Second, st.want) {
			t.Fatalf("%s: no effect (state %s)", st.name, state())
		}
	}
	if err := b.SubmitText("I am answering for the candidate."); !errors.Is(err, tui.ErrReadOnly) {
		t.Errorf("SubmitText from an examiner: %v, want ErrReadOnly", err)
	}
	if err := b.Control(runtime.ControlAction(99)); err == nil {
		t.Error("an unknown control was sent")
	}
}

// TestTestHelpRecordDefault: the help states where --record writes by default, the folder
// TestTestCommandThroughRoom/typed finds the recordings in.
func TestTestHelpRecordDefault(t *testing.T) {
	out, _, err := runCmd(t, "", "test", "--help")
	if err != nil || !strings.Contains(out, "(default <data-dir>/sessions/<session>,") {
		t.Errorf("test --help: %v\n%s", err, out)
	}
}
