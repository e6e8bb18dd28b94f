package tui

import (
	"errors"
	"slices"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/examtui/examtui/runtime"
)

// fakeBackend records every call; err, when set, is returned by all of them.
type fakeBackend struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func (f *fakeBackend) record(s string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
	return f.err
}

func (f *fakeBackend) SubmitText(text string) error { return f.record("submit:" + text) }
func (f *fakeBackend) Control(action runtime.ControlAction) error {
	return f.record("control:" + action.String())
}
func (f *fakeBackend) Admin(mode runtime.AdminMode, text string) error {
	return f.record("admin:" + mode.String() + ":" + text)
}

func (f *fakeBackend) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// newTestModel is New with what every test console needs (no colour, a dark background, no
// clock ticks, so frames depend on the events alone) and opts, failing the test on an error.
func newTestModel(t testing.TB, info Info, b Backend, opts ...Option) *Model {
	t.Helper()
	m, err := New(info, b, append([]Option{WithNoColor(true), WithDarkBackground(true), WithTickInterval(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// startProgram runs m as a real program through teatest on a 120×40 ASCII terminal, filter
// seeing every message of its loop, and bridges events into it (as Run does) until the test
// ends.
func startProgram(t *testing.T, m *Model, filter func(tea.Model, tea.Msg) tea.Msg, events <-chan runtime.Event) *teatest.TestModel {
	t.Helper()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithFilter(filter), tea.WithColorProfile(colorprofile.Ascii)))
	done, bridged := make(chan struct{}), make(chan struct{})
	go func() { defer close(bridged); bridge(done, events, nil, tm.Send) }()
	t.Cleanup(func() { close(done); <-bridged })
	return tm
}

func ctrl(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl} }

func typed(s string) []tea.KeyPressMsg {
	var ks []tea.KeyPressMsg
	for _, r := range s {
		ks = append(ks, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return ks
}

func TestBackendFuncs(t *testing.T) {
	var got []string
	b := BackendFuncs{
		SubmitTextFunc: func(text string) error { got = append(got, "submit:"+text); return nil },
		ControlFunc:    func(a runtime.ControlAction) error { got = append(got, "control:"+a.String()); return nil },
	}
	if err := b.SubmitText("x"); err != nil {
		t.Fatal(err)
	}
	if err := b.Control(runtime.ControlPause); err != nil {
		t.Fatal(err)
	}
	if err := b.Admin(runtime.AdminQueued, "y"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("nil AdminFunc: %v", err)
	}
	if !slices.Equal(got, []string{"submit:x", "control:pause"}) {
		t.Errorf("calls %q", got)
	}
}
