package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/runtime"
)

// roomSession is a room exam in which the candidate joins, loses the connection, rejoins 42 s
// later, and an examiner then pauses the exam.
func roomSession(t testing.TB) []runtime.Event {
	r := newRecorder(t, "s-room-0001", fixtureStart)
	nodes := []string{"welcome", "wrapup"}
	r.at(0, &runtime.ExamStatePayload{State: runtime.StateReady, Previous: runtime.StateCreated, Nodes: nodes, TotalTimeBudgetSec: 600})
	r.at(time.Second, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady})
	r.at(0, &runtime.CandidatePresencePayload{Status: runtime.PresenceJoined, Identity: "candidate-7", Present: 1})
	r.at(0, &runtime.NodeEnteredPayload{NodeID: "welcome", Kind: "scaffolding", MaxFollowUps: 1, TimeBudgetSec: 90,
		Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 2}, DeadlineAt: rfc(r.now.Add(90 * time.Second))})
	r.at(time.Second, &runtime.SpokenPayload{NodeID: "welcome", Source: "intro", Text: "Welcome. Please tell me about yourself."})
	r.at(20*time.Second, &runtime.CandidatePresencePayload{Status: runtime.PresenceLeft, Identity: "candidate-7",
		Reason: "connection lost", NodeID: "welcome"})
	system := &runtime.Actor{Kind: runtime.ActorSystem, Reason: runtime.ReasonCandidateLeft}
	r.at(0, &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress, Reason: "candidate left", By: system})
	r.at(42*time.Second, &runtime.CandidatePresencePayload{Status: runtime.PresenceRejoined, Identity: "candidate-7",
		NodeID: "welcome", AwayMs: 42000, Present: 1})
	r.at(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StatePaused, Reason: "candidate rejoined",
		By: &runtime.Actor{Kind: runtime.ActorSystem, Reason: runtime.ReasonCandidateRejoined}, DeadlineAt: rfc(r.now.Add(69 * time.Second))})
	r.at(0, &runtime.SpokenPayload{NodeID: "welcome", Source: "resume", Text: "Welcome back. Please tell me about yourself."})
	r.at(5*time.Second, &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress, Reason: "paused by examiner-ana",
		By: &runtime.Actor{Kind: runtime.ActorExaminer, Identity: "examiner-ana"}})
	return r.events
}

// TestGoldenPresence draws the transcript and timers of the room session at its end, and the
// timers 30 s into the candidate's absence (the away time counts on the console's clock).
func TestGoldenPresence(t *testing.T) {
	events := roomSession(t)
	info := Info{Title: "Room exam", Examiner: "offline", Input: runtime.SourceRoom}
	cases := []struct {
		name   string
		events []runtime.Event
		now    time.Time
	}{
		{"end", events, events[len(events)-1].Timestamp},
		{"away", events[:7], events[6].Timestamp.Add(30 * time.Second)},
	}
	for _, tc := range cases {
		for _, sz := range goldenSizes[:2] {
			m := newTestModel(t, info, &fakeBackend{}, WithClock(func() time.Time { return tc.now }))
			m.Apply(tc.events...)
			m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
			for _, id := range []PaneID{PaneTranscript, PaneTimers} {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", tc.name, id, sz.w, sz.h), func(t *testing.T) {
					got := renderPaneAt(m, id, sz.w, sz.h)
					requireGolden(t, fmt.Sprintf("presence_%s_%s_%dx%d.golden", tc.name, id, sz.w, sz.h), []byte(got))
				})
			}
		}
	}
}

func TestPresenceLines(t *testing.T) {
	events := roomSession(t)
	m, err := New(Info{Title: "Room exam", Input: runtime.SourceRoom, Observer: true}, &fakeBackend{}, WithNoColor(true),
		WithClock(func() time.Time { return events[len(events)-1].Timestamp }), WithTickInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Apply(events[:6]...)
	if !strings.Contains(m.notice, "candidate candidate-7 left (connection lost)") || !m.noticeErr {
		t.Fatalf("notice after the leave: %q (error %v)", m.notice, m.noticeErr)
	}
	m.Apply(events[6:]...)
	screen := Plain(m.Render())
	for _, want := range []string{
		"candidate candidate-7 joined", "candidate candidate-7 left (connection lost)", "exam paused: candidate left",
		"candidate candidate-7 rejoined after 42s", "exam resumed: candidate rejoined", "exam paused by examiner-ana",
		"State paused by examiner-ana", "Candidate candidate-7 in the room",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
}

// TestPresenceHostileText: identities and reasons come from the network; what the console shows
// of them is cleaned like any text from the stream.
func TestPresenceHostileText(t *testing.T) {
	r := newRecorder(t, "s", fixtureStart)
	r.at(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady})
	r.at(0, &runtime.CandidatePresencePayload{Status: runtime.PresenceJoined, Identity: "cand\x1b[2J\u202eevil", Present: 1})
	r.at(time.Second, &runtime.CandidatePresencePayload{Status: runtime.PresenceLeft, Identity: "cand\x1b[2J\u202eevil", Reason: "gone\x07\r\nfake line"})
	r.at(0, &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress,
		By: &runtime.Actor{Kind: runtime.ActorExaminer, Identity: "ana\x1b]0;title\x07"}})
	m, err := New(Info{Title: "Room exam", Input: runtime.SourceRoom}, &fakeBackend{}, WithNoColor(true), WithTickInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Apply(r.events...)
	screen := Plain(m.Render())
	for _, bad := range []string{"\x1b[2J", "\u202e", "\x07", "\x1b]0"} {
		if strings.Contains(screen, bad) {
			t.Fatalf("the screen carries %q", bad)
		}
	}
	if !strings.Contains(m.notice, "left") || strings.ContainsAny(m.notice, "\x1b\u202e\x07\r\n") {
		t.Fatalf("notice %q", m.notice)
	}
}
