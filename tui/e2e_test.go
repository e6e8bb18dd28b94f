package tui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// scriptedExam is a small in-test backend that behaves like a controller: typed answers go in,
// events come out on a channel, and the exam walks welcome → breakfast → wrapup. Its clock
// advances a fixed step per event so the final screen is stable.
type scriptedExam struct {
	mu       sync.Mutex
	rec      *recorder
	events   chan runtime.Event
	node     string
	answers  int
	received chan string // every call, for the test to wait on
	closed   bool
}

func newScriptedExam() *scriptedExam {
	return &scriptedExam{rec: newRecorder(nil, "s-e2e", fixtureStart), events: make(chan runtime.Event, 256),
		received: make(chan string, 64)}
}

func (s *scriptedExam) emit(d time.Duration, p runtime.Payload) {
	s.rec.at(d, p)
	s.events <- s.rec.events[len(s.rec.events)-1]
}

func (s *scriptedExam) enter(id, kind string, idx int, budget int, required int) {
	s.node = id
	s.emit(0, &runtime.NodeEnteredPayload{NodeID: id, Kind: kind, MaxFollowUps: 2, TimeBudgetSec: budget,
		Progress: runtime.Progress{CurrentNodeIndex: idx, TotalNodes: 3}, RequiredEvidenceCount: required,
		DeadlineAt: rfc(s.rec.now.Add(time.Duration(budget) * time.Second))})
}

func (s *scriptedExam) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emit(0, &runtime.ExamStatePayload{State: runtime.StateReady, Previous: runtime.StateCreated,
		Nodes: []string{"welcome", "breakfast", "wrapup"}, TotalTimeBudgetSec: 600})
	s.emit(time.Second, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady})
	s.enter("welcome", "scaffolding", 1, 60, 0)
	s.emit(time.Second, &runtime.SpokenPayload{NodeID: "welcome", Source: "intro", Text: "Welcome. Are you ready to begin?"})
}

func (s *scriptedExam) SubmitText(text string) error {
	s.mu.Lock()
	defer func() { s.mu.Unlock(); s.received <- "submit:" + text }()
	if s.closed {
		return fmt.Errorf("exam is over")
	}
	s.answers++
	s.emit(5*time.Second, &runtime.TranscriptSegmentPayload{SegmentID: fmt.Sprintf("c%d", s.answers), NodeID: s.node,
		Speaker: "candidate", Text: text, Confidence: 1, IsFinal: true, Source: "typed"})
	s.emit(time.Second, &runtime.ObservationPayload{NodeID: s.node, Turn: s.answers, Examiner: "scripted", Valid: true,
		Raw: rawJSON(map[string]any{"answerQuality": "substantive"}), Decision: runtime.Decision{Action: "continue"},
		Latency: runtime.Latency{LLMCompleteMs: 3, TotalMs: 4}})
	switch {
	case s.node == "welcome":
		s.enter("breakfast", "assessment", 2, 300, 2)
		s.emit(time.Second, &runtime.SpokenPayload{NodeID: "breakfast", Source: "prompt", Text: "How would you organise breakfast?"})
	case s.node == "breakfast" && strings.Contains(text, "buffet"):
		n := s.answers - 1
		s.emit(0, &runtime.EvidenceUpdatePayload{NodeID: "breakfast", SignalType: fmt.Sprintf("signal_%d", n), RubricLevel: "analysis",
			Excerpt: text, Confidence: 0.9, Accepted: n, Required: 2})
		if n < 2 {
			s.emit(time.Second, &runtime.SpokenPayload{NodeID: "breakfast", Source: "examiner", Text: "And the budget?"})
			return nil
		}
		s.enter("wrapup", "end", 3, 0, 0)
		s.emit(time.Second, &runtime.SpokenPayload{NodeID: "wrapup", Source: "prompt", Text: "Thank you, that is the end of the exam."})
		s.emit(0, &runtime.ExamStatePayload{State: runtime.StateCompleted, Previous: runtime.StateInProgress})
		s.emit(0, &runtime.ExamCompletedPayload{State: runtime.StateCompleted, DurationMs: 30000,
			NodesVisited: []string{"welcome", "breakfast", "wrapup"}})
		s.closed = true
		close(s.events)
	default:
		s.emit(time.Second, &runtime.SpokenPayload{NodeID: s.node, Source: "examiner", Text: "Tell me about the buffet."})
	}
	return nil
}

func (s *scriptedExam) Control(action runtime.ControlAction) error {
	defer func() { s.received <- "control:" + action.String() }()
	return nil
}

func (s *scriptedExam) Admin(mode runtime.AdminMode, text string) error {
	s.mu.Lock()
	defer func() { s.mu.Unlock(); s.received <- "admin:" + mode.String() + ":" + text }()
	s.emit(0, &runtime.AdminInstructionPayload{Mode: mode, Text: text, Sender: "console", NodeID: s.node, Status: runtime.AdminReceived})
	return nil
}

func waitCall(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	if got := testutil.Recv(t, ch, 10*time.Second, "the backend to get %q", want); got != want {
		t.Fatalf("backend got %q, want %q", got, want)
	}
}

// TestEndToEndTypedExam drives the real program through teatest: typed answers through a whole
// exam, an examiner instruction on the way, events arriving through the bridge.
func TestEndToEndTypedExam(t *testing.T) {
	exam := newScriptedExam()
	m := newTestModel(t, Info{Title: "E2E exam", Examiner: "scripted"}, exam, WithEventClock())
	// The filter sees every message in the program's loop: it tells the test when the stream
	// has ended and when each Backend call's result has been handled.
	streamEnded := make(chan struct{})
	results := make(chan struct{}, 16)
	var once sync.Once
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		switch msg.(type) {
		case StreamEndedMsg:
			once.Do(func() { close(streamEnded) })
		case backendResultMsg:
			results <- struct{}{}
		}
		return msg
	}
	tm := startProgram(t, m, filter, exam.events)

	exam.Start()
	answers := []string{"Yes, I am ready.", "A hot buffet for families.", "A small buffet keeps the budget low."}
	for i, a := range answers {
		tm.Type(a)
		tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
		waitCall(t, exam.received, "submit:"+a)
		if i == 0 {
			tm.Send(ctrl('o'))
			tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
			tm.Type("Ask about costs")
			tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
			waitCall(t, exam.received, "admin:queued:Ask about costs")
		}
	}
	select {
	case <-streamEnded:
	case <-time.After(10 * time.Second):
		t.Fatal("the event stream never reached the console")
	}
	for range len(answers) + 1 {
		testutil.Recv(t, results, 10*time.Second, "a backend result to reach the console")
	}
	// The exam is over, so quitting needs no confirmation.
	tm.Send(ctrl('c'))
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)

	if final.State() != runtime.StateCompleted {
		t.Errorf("final state %s", final.State())
	}
	var candidate int
	for _, tr := range transcriptOf(final).turns {
		if tr.kind == turnCandidate {
			candidate++
		}
	}
	if candidate != len(answers) || evidenceOf(final).total != 2 {
		t.Errorf("candidate turns %d, evidence %d", candidate, evidenceOf(final).total)
	}
	requireFits(t, final.Render(), 120)
	out, err := io.ReadAll(tm.FinalOutput(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("E2E exam")) {
		t.Errorf("program output never showed the title")
	}
	requireGolden(t, "e2e_final_120x40.golden", []byte(Plain(final.Render())+"\n"))
}

// TestRunStopsOnContext runs the real entry point headless: events reach the model through the
// bridge, and cancelling the context ends Run and its goroutine.
func TestRunStopsOnContext(t *testing.T) {
	audio := make(chan AudioLevelMsg)
	m, err := New(Info{Title: "Run"}, &fakeBackend{}, WithDarkBackground(true), WithTickInterval(0), WithAudioLevels(audio))
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan runtime.Event)
	applied, heard := make(chan struct{}), make(chan struct{})
	var once, onceAudio sync.Once
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		switch msg.(type) {
		case EventsMsg:
			once.Do(func() { close(applied) })
		case AudioLevelMsg:
			onceAudio.Do(func() { close(heard) })
		}
		return msg
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- Run(ctx, m, events, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(100, 30),
			tea.WithoutSignals(), tea.WithFilter(filter))
	}()
	for _, ev := range hotelSession(t)[:5] {
		events <- ev
	}
	audio <- AudioLevelMsg{Level: 0.3, State: "speech"}
	<-applied
	<-heard
	cancel()
	if err := testutil.Recv(t, errc, 10*time.Second, "Run to return after cancel"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if m.events == 0 || m.state != runtime.StateInProgress || !m.haveAudio {
		t.Errorf("events %d state %s audio %v", m.events, m.state, m.haveAudio)
	}
}

func TestBridgeBatchesAndEnds(t *testing.T) {
	events := make(chan runtime.Event, 10)
	for _, ev := range hotelSession(t)[:7] {
		events <- ev
	}
	close(events)
	var got []tea.Msg
	bridge(make(chan struct{}), events, nil, func(msg tea.Msg) { got = append(got, msg) })
	if len(got) != 2 {
		t.Fatalf("got %d messages, want one batch and the end: %#v", len(got), got)
	}
	if b, ok := got[0].(EventsMsg); !ok || len(b) != 7 {
		t.Errorf("first message %#v", got[0])
	}
	if _, ok := got[1].(StreamEndedMsg); !ok {
		t.Errorf("second message %#v", got[1])
	}
}
