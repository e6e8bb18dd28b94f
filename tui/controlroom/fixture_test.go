package controlroom

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/usage"
	"github.com/examtui/examtui/sessions"
)

func TestMain(m *testing.M) {
	time.Local = time.UTC // goldens show clock times
	os.Exit(m.Run())
}

// fixtureNow is the instant every fixture is read at.
var fixtureNow = time.Date(2026, 6, 12, 10, 30, 0, 0, time.UTC)

// exam builds one exam's events: a helper that stamps seq and time.
type exam struct {
	id  string
	seq int64
	evs []runtime.Event
}

func (e *exam) add(t testing.TB, at time.Time, p runtime.Payload) {
	t.Helper()
	e.seq++
	ev, err := runtime.NewEvent(e.id, e.seq, at, p)
	if err != nil {
		t.Fatal(err)
	}
	e.evs = append(e.evs, ev)
}

var candidates = []string{"Alice Martin", "Bob Okafor", "Chen Wei", "Dara Singh", "Eve Laurent", "Farid Haddad",
	"Grace Kim", "Hugo Silva", "Ines Duarte", "Jonas Berg", "Kemi Adeyemi", "Luca Rossi"}

// fixtureBoard is a board of n exams (n ≥ 12) covering every alert kind and every state, as
// read at fixtureNow.
func fixtureBoard(t testing.TB, n int) *monitor.Board {
	price := func(v float64) *float64 { return &v }
	b, err := monitor.NewBoard(monitor.Thresholds{CostPerExam: 0.5,
		Prices: usage.Prices{"gpt-4o-mini": {PromptPerMTok: price(0.15), CompletionPerMTok: price(0.6)}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		name := candidates[i%len(candidates)]
		if i >= len(candidates) {
			name = fmt.Sprintf("%s %d", name, i/len(candidates)+1)
		}
		start := fixtureNow.Add(-time.Duration(20-i%12) * time.Minute)
		s := &sessions.Session{ID: fmt.Sprintf("%016x", 0xa11ce000+i), Candidate: name,
			Title: "Hospitality Management", Examiner: "offline", Input: runtime.SourceTyped,
			StartedAt: start, State: runtime.StateInProgress}
		if i%3 == 1 {
			s.Input, s.Examiner = runtime.SourceMic, "gpt-4o-mini"
		}
		e := &exam{id: s.ID}
		at := start
		step := func(d time.Duration) time.Time { at = at.Add(d); return at }
		e.add(t, at, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady,
			TotalTimeBudgetSec: 1800, ExamDeadlineAt: start.Add(30 * time.Minute).Format(time.RFC3339Nano)})
		node := "scenario-breakfast"
		budget := 600
		entered := fixtureNow.Add(-4 * time.Minute)
		switch i % 12 {
		case 8: // over budget: entered 11 minutes ago with a 10-minute budget
			entered = fixtureNow.Add(-11 * time.Minute)
		case 5: // stalled: nothing since 7 minutes ago
			entered = fixtureNow.Add(-7 * time.Minute)
		}
		at = entered
		e.add(t, at, &runtime.NodeEnteredPayload{NodeID: node, Kind: "scenario", TimeBudgetSec: budget,
			Progress: runtime.Progress{CurrentNodeIndex: 2, TotalNodes: 4}, DeadlineAt: entered.Add(time.Duration(budget) * time.Second).Format(time.RFC3339Nano)})
		at = fixtureNow.Add(-90 * time.Second)
		line := "We could open a second buffet line for the conference guests."
		say := func(text string) {
			e.add(t, step(20*time.Second), &runtime.TranscriptSegmentPayload{Speaker: "candidate", Text: text, IsFinal: true, Confidence: 0.9})
		}
		switch i % 12 {
		case 0:
			say("I can't do this, I give up.")
			e.add(t, step(time.Second), &runtime.GuardrailTriggeredPayload{Guardrail: "distress", NodeID: node, Action: "transition",
				OriginalText: "I can't do this, I give up.", Detail: "distress"})
		case 1:
			say("Sorry, I am really nervous.")
			e.add(t, step(time.Second), &runtime.GuardrailTriggeredPayload{Guardrail: "anxiety_neutrality", NodeID: node,
				Action: "replaced", OriginalText: "Wrong, try again.", ReplacementText: "Take your time."})
		case 2:
			say(line)
			e.add(t, step(time.Second), &runtime.GuardrailTriggeredPayload{Guardrail: "answer_leak", NodeID: node,
				Action: "output_intercepted", OriginalText: "The rubric wants staffing.", ReplacementText: "What would you do?"})
		case 3:
			say("mumble buffet mumble")
			for range 3 {
				e.add(t, step(time.Second), &runtime.RecoveryPayload{Kind: "stt_low_confidence", NodeID: node, SignalType: "proposes_options"})
			}
		case 4: // silent: last answer 3 minutes ago, but the exam still ticks
			at = fixtureNow.Add(-3*time.Minute - 20*time.Second)
			say(line)
			e.add(t, fixtureNow.Add(-10*time.Second), &runtime.TimeWarningPayload{Scope: "node", NodeID: node, RemainingSec: 60})
		case 5: // stalled: nothing for 6 minutes
			at = fixtureNow.Add(-6*time.Minute - 20*time.Second)
			say(line)
		case 6:
			say(line)
			e.add(t, step(time.Second), &runtime.SystemErrorPayload{Code: "examiner_failed", Message: "chat completion: 503 Service Unavailable", NodeID: node})
		case 7:
			say(line)
			s.Interrupted = true
		case 8:
			say(line)
		case 9: // the candidate's connection dropped: paused for their absence
			say(line)
			e.add(t, step(time.Second), &runtime.CandidatePresencePayload{Status: runtime.PresenceLeft, Identity: "jonas",
				Reason: "connection lost", NodeID: node})
			e.add(t, at, &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress, Reason: "candidate left",
				By: &runtime.Actor{Kind: runtime.ActorSystem, Reason: runtime.ReasonCandidateLeft}})
		case 10:
			say("I would like to finish now.")
			e.add(t, step(time.Second), &runtime.CommandAcknowledgedPayload{Command: "finish", Accepted: true, Source: "examiner", Detail: "awaiting confirmation"})
		case 11:
			say("Thank you, that is all.")
			e.add(t, step(time.Second), &runtime.ExamCompletedPayload{State: runtime.StateCompleted, DurationMs: 900000})
			s.EndedAt, s.State = at, runtime.StateCompleted
		}
		if s.Examiner == "gpt-4o-mini" {
			// What the examiner's calls cost: a usual turn; none reported (the cost is unknown);
			// a long exam over the budget of 0.50.
			tokens := func(n int64) *int64 { return &n }
			u := &runtime.TurnUsage{Model: s.Examiner, PromptTokens: tokens(12000), CompletionTokens: tokens(800)}
			switch i % 12 {
			case 7:
				u.PromptTokens, u.CompletionTokens = nil, nil
			case 10:
				u.PromptTokens, u.CompletionTokens = tokens(3_000_000), tokens(100_000)
			}
			e.add(t, latestTime(e.evs), &runtime.ObservationPayload{NodeID: node, Turn: 3, Examiner: s.Examiner, Valid: true,
				Decision: runtime.Decision{Action: runtime.DecisionContinue}, Usage: u})
		}
		at = latestTime(e.evs)
		if i%12 != 4 && i%12 != 5 {
			// keep the exam lively: a recent examiner line
			e.add(t, fixtureNow.Add(-time.Duration(5+i%7)*time.Second), &runtime.TranscriptSegmentPayload{Speaker: "examiner", Text: "Go on.", IsFinal: true})
		}
		s.EventCount, s.LastEventAt = e.seq, latestTime(e.evs)
		b.ApplyUpdate(monitor.Update{Sessions: []*sessions.Session{s}, Events: e.evs})
	}
	// Two rooms an exam was dispatched to and no bot joined: one past the not-started
	// threshold with its candidate waiting, one just dispatched and empty.
	b.SetWaiting([]monitor.Waiting{
		{Room: "exam-room-41", Candidate: "Mia Novak", DispatchID: "AD_41", Since: fixtureNow.Add(-45 * time.Second)},
		{Room: "exam-room-42", DispatchID: "AD_42", Since: fixtureNow.Add(-10 * time.Second)},
	})
	b.Tick(fixtureNow)
	return b
}

func latestTime(evs []runtime.Event) time.Time {
	var t time.Time
	for _, ev := range evs {
		if ev.Timestamp.After(t) {
			t = ev.Timestamp
		}
	}
	return t
}

func fixtureModel(t testing.TB, n, w, h int, noColor bool, opts ...Option) *Model {
	m, err := New(fixtureBoard(t, n), append([]Option{WithNoColor(noColor), WithClock(func() time.Time { return fixtureNow }),
		WithTickInterval(0), WithSince(fixtureNow.Add(-10 * time.Hour))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.keepCursor()
	return m
}

func requireGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got)
}
