package controlroom

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/tui"
)

// recordingBackend records what the opened console sends.
type recordingBackend struct {
	mu    sync.Mutex
	calls []string
	got   chan string
}

func (b *recordingBackend) SubmitText(string) error { return tui.ErrReadOnly }
func (b *recordingBackend) Control(a runtime.ControlAction) error {
	b.record("control:" + a.String())
	return nil
}
func (b *recordingBackend) Admin(mode runtime.AdminMode, text string) error {
	b.record("admin:" + mode.String() + ":" + text)
	return nil
}

func (b *recordingBackend) record(s string) {
	b.mu.Lock()
	b.calls = append(b.calls, s)
	b.mu.Unlock()
	b.got <- s
}

// TestSelectFilterOpenClose drives the control room through teatest: move the selection,
// filter to one exam, open its console, pause it, return with esc to the same row.
func TestSelectFilterOpenClose(t *testing.T) {
	be := &recordingBackend{got: make(chan string, 4)}
	var opened []string
	m := fixtureModel(t, 12, 120, 40, true,
		WithBackend(func(r *monitor.Row) (tui.Backend, error) { opened = append(opened, r.SessionID); return be, nil }),
		WithLoader(func(_ context.Context, id string) ([]runtime.Event, error) {
			ev, err := runtime.NewEvent(id, 1, fixtureNow, &runtime.ExamStatePayload{State: runtime.StateInProgress})
			return []runtime.Event{ev}, err
		}))
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))

	tm.Send(tea.KeyPressMsg{Code: tea.KeyDown})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyDown})
	tm.Type("/grace")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), `filter "grace"`) },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "Transcript") },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'p', Mod: tea.ModCtrl})
	if c := testutil.Recv(t, be.got, 5*time.Second, "ctrl+p in the opened console to send a command"); c != "control:pause" {
		t.Errorf("the console sent %q, want control:pause", c)
	}
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(string(b), "LIVE (1)") },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape}) // clears the filter
	tm.Send(tea.KeyPressMsg{Code: 'q'})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	grace := final.Board().Row("00000000a11ce006")
	if grace == nil || grace.Candidate != "Grace Kim" {
		t.Fatalf("fixture changed: %v", grace)
	}
	if final.Open() != "" || final.Selected() != grace.SessionID {
		t.Errorf("after esc: open %q, selected %q; want the list with Grace selected", final.Open(), final.Selected())
	}
	if len(opened) != 1 || opened[0] != grace.SessionID {
		t.Errorf("backends opened for %v", opened)
	}
	if final.filter.Value() != "" {
		t.Errorf("filter %q after esc", final.filter.Value())
	}
}

// TestReadOnlyOpensWithoutControls: an observer's console has no backend.
func TestReadOnlyOpensWithoutControls(t *testing.T) {
	called := false
	m := fixtureModel(t, 12, 120, 40, true, WithReadOnly(true),
		WithBackend(func(*monitor.Row) (tui.Backend, error) { called = true; return nil, nil }),
		WithLoader(func(context.Context, string) ([]runtime.Event, error) { return nil, nil }))
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if called || m.Open() == "" {
		t.Fatalf("read-only open: backend asked %v, open %q", called, m.Open())
	}
	m.Update(tea.KeyPressMsg{Code: 'p', Mod: tea.ModCtrl})
	if !strings.Contains(m.Render(), "read-only") {
		t.Errorf("the read-only console does not say so:\n%s", tui.Plain(m.Render()))
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if m.Open() != "" {
		t.Errorf("esc left the console open")
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"}); m.Open() != "" || cmd != nil {
		t.Errorf("q in a read-only console: open %q, cmd %v; want back on the list", m.Open(), cmd != nil)
	}
}

// TestBellOncePerNewAlert: history does not ring; a new alert rings once; --quiet never.
func TestBellOncePerNewAlert(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		b, _ := monitor.NewBoard(monitor.Thresholds{})
		m, err := New(b, WithQuiet(quiet), WithTickInterval(0))
		if err != nil {
			t.Fatal(err)
		}
		ev := func(seq int64, p runtime.Payload) runtime.Event {
			e, err := runtime.NewEvent("s1", seq, fixtureNow, p)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		distress := &runtime.GuardrailTriggeredPayload{Guardrail: "distress", Action: "transition"}
		_, cmd := m.Update(UpdateMsg{First: true, Events: []runtime.Event{ev(1, distress)}})
		if cmd != nil {
			t.Errorf("quiet=%v: the history rang", quiet)
		}
		_, cmd = m.Update(UpdateMsg{Events: []runtime.Event{ev(2, &runtime.SystemErrorPayload{Code: "examiner_failed"})}})
		if (cmd != nil) == quiet {
			t.Errorf("quiet=%v: a new alert rang %v", quiet, cmd != nil)
		}
		_, cmd = m.Update(UpdateMsg{Events: []runtime.Event{ev(3, &runtime.SystemErrorPayload{Code: "examiner_failed"})}})
		if cmd != nil {
			t.Errorf("quiet=%v: a standing alert rang again", quiet)
		}
	}
}

// BenchmarkFrame50 renders one frame of the list with 50 live exams at 200×60.
func BenchmarkFrame50(b *testing.B) {
	m := fixtureModel(b, 50, 200, 60, false)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.Render()
	}
}

// TestConsoleSeesEachEventOnce: the history and live polls overlap in every order; the open
// console gets each event once.
func TestConsoleSeesEachEventOnce(t *testing.T) {
	const id = "00000000a11ce00a" // Kemi Adeyemi in the fixture
	evs := make([]runtime.Event, 6)
	for i := range evs {
		var err error
		evs[i], err = runtime.NewEvent(id, int64(i+1), fixtureNow, &runtime.TranscriptSegmentPayload{
			Speaker: "candidate", Text: fmt.Sprintf("line %d", i+1), IsFinal: true})
		if err != nil {
			t.Fatal(err)
		}
	}
	m := fixtureModel(t, 12, 120, 40, true, WithReadOnly(true),
		WithLoader(func(context.Context, string) ([]runtime.Event, error) { return evs[:4], nil }))
	m.cursor = id
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	m.Update(UpdateMsg{Events: evs[2:5]}) // arrives while the history loads
	m.Update(loadedMsg{id: id, events: evs[:4]})
	m.Update(UpdateMsg{Events: evs[3:6]}) // an overlapping poll after
	frame := tui.Plain(m.Render())
	for i := 1; i <= 6; i++ {
		if n := strings.Count(frame, fmt.Sprintf("line %d", i)); n != 1 {
			t.Errorf("line %d shown %d times:\n%s", i, n, frame)
		}
	}
}
