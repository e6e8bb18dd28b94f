package livekit_test

import (
	"context"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/transport/livekit"
)

// eventsOf returns sample events of the given types, numbered from seq.
func eventsOf(t *testing.T, seq int64, types ...runtime.EventType) []runtime.Event {
	t.Helper()
	byType := map[runtime.EventType]runtime.Event{}
	for _, ev := range runtimetest.SampleEvents(t) {
		byType[ev.Event] = ev
	}
	var out []runtime.Event
	for _, typ := range types {
		ev, ok := byType[typ]
		if !ok {
			t.Fatalf("no sample %s event", typ)
		}
		ev.Seq = seq
		seq++
		out = append(out, ev)
	}
	return out
}

func publishAll(t *testing.T, r *livekit.Room, evs []runtime.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := r.Publish(ev); err != nil {
			t.Fatal(err)
		}
	}
}

// seqsUntil collects events until every seq in want has arrived (or d passes) and returns the
// seqs seen, failing on any event outside allowed.
func seqsUntil(t *testing.T, who string, ch <-chan runtime.Event, d time.Duration, want []int64, allowed func(runtime.Event) bool) map[int64]bool {
	t.Helper()
	seen := map[int64]bool{}
	missing := func() int {
		n := 0
		for _, s := range want {
			if !seen[s] {
				n++
			}
		}
		return n
	}
	got := collect(context.Background(), ch, d, func(got []runtime.Event) bool {
		for _, ev := range got {
			seen[ev.Seq] = true
		}
		return missing() == 0
	})
	for _, ev := range got {
		if !allowed(ev) {
			t.Errorf("%s received %s #%d", who, ev.Event, ev.Seq)
		}
	}
	if n := missing(); n > 0 {
		t.Fatalf("%s is missing %d of seqs %v; got %v", who, n, want, seen)
	}
	return seen
}

func wantSeqs(evs []runtime.Event, keep func(runtime.Event) bool) []int64 {
	var s []int64
	for _, ev := range evs {
		if keep(ev) {
			s = append(s, ev.Seq)
		}
	}
	return s
}

func all(runtime.Event) bool             { return true }
func forCandidate(ev runtime.Event) bool { return runtimetest.CandidateTypes[ev.Event] }

// TestReconnectAfterServerRestart crashes the server mid-exam and checks that the bot and both
// participants come back by themselves: events published during the outage arrive, typed input
// and examiner commands work, and the candidate's audio reaches the bot again.
func TestReconnectAfterServerRestart(t *testing.T) {
	e := startExam(t)
	cand, exr := e.dialBoth(t, livekit.WithMicrophone(16000))

	before := eventsOf(t, 1, runtime.EventExamState, runtime.EventNodeEntered, runtime.EventEvidenceUpdate, runtime.EventSpoken)
	publishAll(t, e.bot, before)
	seqsUntil(t, "examiner", exr.Events(), 10*time.Second, wantSeqs(before, all), all)
	seqsUntil(t, "candidate", cand.Events(), 10*time.Second, wantSeqs(before, forCandidate), forCandidate)

	e.srv.Restart()
	during := eventsOf(t, 5, runtime.EventTranscriptSegment, runtime.EventObservation, runtime.EventTimeWarning, runtime.EventSpoken)
	publishAll(t, e.bot, during)

	seqsUntil(t, "examiner", exr.Events(), 45*time.Second, wantSeqs(during, all), all)
	seqsUntil(t, "candidate", cand.Events(), 20*time.Second, wantSeqs(during, forCandidate), forCandidate)
	e.waitAudience(t, "candidate-1", "examiner-1")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cand.SendCandidateText(ctx, "Still here after the outage.", 1); err != nil {
		t.Fatal(err)
	}
	if err := exr.SendControl(ctx, runtime.ControlResume); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() bool {
		texts, cmds := e.in.snapshot()
		return len(texts) == 1 && len(cmds) == 1
	}, "typed answer and command after the restart")

	// The candidate's microphone is subscribed again.
	go sendTone(ctx, cand)
	loud := 0
	for loud < 25 {
		select {
		case f := <-e.bot.Audio():
			if audio.RMS(f.Samples) > 1000 {
				loud++
			}
		case <-ctx.Done():
			t.Fatalf("bot heard %d loud frames from the candidate after the restart", loud)
		}
	}
	if e.bot.State() != livekit.StateConnected {
		t.Errorf("bot state = %s", e.bot.State())
	}
}

// TestCandidateLeavesAndRejoins checks that a candidate who drops out gets, on rejoining, its
// view of everything it missed and nothing more.
func TestCandidateLeavesAndRejoins(t *testing.T) {
	e := startExam(t)
	first := e.dial(t, "candidate-1", livekit.RoleCandidate)
	e.waitAudience(t, "candidate-1")
	early := eventsOf(t, 1, runtime.EventExamState, runtime.EventNodeEntered)
	publishAll(t, e.bot, early)
	seqsUntil(t, "candidate", first.Events(), 10*time.Second, wantSeqs(early, forCandidate), forCandidate)

	first.Close()
	testutil.Eventually(t, 15*time.Second, func() bool { return e.bot.Candidate() == "" }, "the bot to see the candidate leave")
	missed := eventsOf(t, 3, runtime.EventEvidenceUpdate, runtime.EventSpoken, runtime.EventTimeWarning, runtime.EventGuardrailTriggered)
	publishAll(t, e.bot, missed)

	again := e.dial(t, "candidate-1", livekit.RoleCandidate)
	all := append(append([]runtime.Event(nil), early...), missed...)
	seen := seqsUntil(t, "rejoined candidate", again.Events(), 15*time.Second, wantSeqs(all, forCandidate), forCandidate)
	// Nothing else straggles in.
	for _, ev := range collect(context.Background(), again.Events(), 300*time.Millisecond, func([]runtime.Event) bool { return false }) {
		if !forCandidate(ev) || seen[ev.Seq] {
			t.Errorf("rejoined candidate received %s #%d again or out of its view", ev.Event, ev.Seq)
		}
	}
	if e.bot.Stats().Replays < 1 {
		t.Errorf("replays = %d, want one for the rejoin", e.bot.Stats().Replays)
	}
}
