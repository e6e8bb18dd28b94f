package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/examtui/examtui/runtime"
)

// switchingBackend is a Backend that can also switch input, as a local exam with --mic does.
type switchingBackend struct {
	fakeBackend
	mode runtime.InputSource
	err  error
	to   runtime.InputSource // when set, the mode SwitchInput reports (a misbehaving backend)
}

func (s *switchingBackend) SwitchInput() (runtime.InputSource, error) {
	if err := s.record("switch"); err != nil {
		return "", err
	}
	if s.err != nil {
		return "", s.err
	}
	if s.to != "" {
		return s.to, nil
	}
	if s.mode == runtime.SourceMic {
		s.mode = runtime.SourceTyped
	} else {
		s.mode = runtime.SourceMic
	}
	return s.mode, nil
}

// checkedSwitcher is a switcher that can say it cannot switch (started without a microphone).
type checkedSwitcher struct {
	switchingBackend
	can bool
}

func (c *checkedSwitcher) CanSwitchInput() bool { return c.can }

func switchModel(t *testing.T, b Backend, input runtime.InputSource) *Model {
	t.Helper()
	info := hotelInfo
	info.Input = input
	m := newTestModel(t, info, b, WithEventClock())
	m.Apply(readJSONL(t, hotelJSONL)...)
	drive(t, m, windowSize(120, 40))
	return m
}

func TestSwitchInputKey(t *testing.T) {
	completed := runtime.Event{Event: runtime.EventExamState, SessionID: "s-hotel-0001", Seq: 1000,
		Payload: []byte(`{"state":"completed","previous":"in_progress"}`)}
	cases := []struct {
		name       string
		backend    func() Backend
		start      runtime.InputSource
		pre        []runtime.Event
		keys       []string
		wantCalls  []string
		wantInput  runtime.InputSource
		wantNotice string
		wantErr    bool
		wantHelp   bool // the binding is listed in the help overlay
	}{
		{name: "ctrl+t switches typed to mic", backend: func() Backend { return &switchingBackend{mode: runtime.SourceTyped} },
			start: runtime.SourceTyped, keys: []string{"ctrl+t"}, wantCalls: []string{"switch"}, wantInput: runtime.SourceMic,
			wantNotice: "input: mic", wantHelp: true},
		{name: "ctrl+t twice is back to typed", backend: func() Backend { return &switchingBackend{mode: runtime.SourceTyped} },
			start: runtime.SourceTyped, keys: []string{"ctrl+t", "ctrl+t"}, wantCalls: []string{"switch", "switch"},
			wantInput: runtime.SourceTyped, wantNotice: "input: typed", wantHelp: true},
		{name: "ctrl+t works from a focused pane", backend: func() Backend { return &switchingBackend{mode: runtime.SourceMic} },
			start: runtime.SourceMic, keys: []string{"tab", "tab", "ctrl+t"}, wantCalls: []string{"switch"}, wantInput: runtime.SourceTyped,
			wantNotice: "input: typed", wantHelp: true},
		{name: "a failed switch keeps the mode and says why",
			backend: func() Backend {
				return &switchingBackend{mode: runtime.SourceTyped, err: errors.New("no capture device")}
			},
			start: runtime.SourceTyped, keys: []string{"ctrl+t"}, wantCalls: []string{"switch"}, wantInput: runtime.SourceTyped,
			wantNotice: "switching input failed: no capture device", wantErr: true, wantHelp: true},
		{name: "an unknown mode from the backend is refused",
			backend: func() Backend { return &switchingBackend{mode: runtime.SourceTyped, to: "telepathy"} },
			start:   runtime.SourceTyped, keys: []string{"ctrl+t"}, wantCalls: []string{"switch"}, wantInput: runtime.SourceTyped,
			wantNotice: "unknown input mode", wantErr: true, wantHelp: true},
		{name: "after the exam ended nothing is switched", backend: func() Backend { return &switchingBackend{mode: runtime.SourceTyped} },
			start: runtime.SourceTyped, pre: []runtime.Event{completed}, keys: []string{"ctrl+t"}, wantInput: runtime.SourceTyped,
			wantNotice: "input switch not sent", wantErr: true, wantHelp: true},
		{name: "without a switcher the key is disabled and hidden", backend: func() Backend { return &fakeBackend{} },
			start: runtime.SourceTyped, keys: []string{"ctrl+t"}, wantInput: runtime.SourceTyped},
		{name: "a switcher that cannot switch disables the key",
			backend: func() Backend { return &checkedSwitcher{switchingBackend{mode: runtime.SourceTyped}, false} },
			start:   runtime.SourceTyped, keys: []string{"ctrl+t"}, wantInput: runtime.SourceTyped},
		{name: "a switcher that can switch keeps the key",
			backend: func() Backend { return &checkedSwitcher{switchingBackend{mode: runtime.SourceTyped}, true} },
			start:   runtime.SourceTyped, keys: []string{"ctrl+t"}, wantCalls: []string{"switch"}, wantInput: runtime.SourceMic,
			wantNotice: "input: mic", wantHelp: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.backend()
			m := switchModel(t, b, tc.start)
			m.Apply(tc.pre...)
			for _, k := range tc.keys {
				drive(t, m, press(k)) // one at a time: each call finishes before the next key
			}
			var calls []string
			switch b := b.(type) {
			case *switchingBackend:
				calls = b.Calls()
			case *fakeBackend:
				calls = b.Calls()
			case *checkedSwitcher:
				calls = b.Calls()
			}
			if !slices.Equal(calls, tc.wantCalls) {
				t.Errorf("backend calls %q, want %q", calls, tc.wantCalls)
			}
			if m.InputMode() != tc.wantInput {
				t.Errorf("input mode %s, want %s", m.InputMode(), tc.wantInput)
			}
			if status := Plain(m.statusLine()); !strings.Contains(status, "input "+tc.wantInput.String()) {
				t.Errorf("status line %q does not show input %s", status, tc.wantInput)
			}
			if !strings.Contains(m.notice, tc.wantNotice) || m.noticeErr != tc.wantErr {
				t.Errorf("notice %q (error %v), want %q (error %v)", m.notice, m.noticeErr, tc.wantNotice, tc.wantErr)
			}
			if m.input.Value() != "" {
				t.Errorf("ctrl+t leaked into the input line: %q", m.input.Value())
			}
			drive(t, m, press("f1"))
			inHelp := strings.Contains(Plain(m.Render()), "typed/spoken input")
			if inHelp != tc.wantHelp {
				t.Errorf("help lists the switch key: %v, want %v", inHelp, tc.wantHelp)
			}
		})
	}
}

// TestSwitchInputWhileSwitching: a second press while the first call is under way does not
// start another (a slow device open must not be toggled back by an impatient key).
func TestSwitchInputWhileSwitching(t *testing.T) {
	b := &switchingBackend{mode: runtime.SourceTyped}
	m := switchModel(t, b, runtime.SourceTyped)
	drive(t, m, press("ctrl+t"), press("ctrl+t"))
	if got := b.Calls(); !slices.Equal(got, []string{"switch"}) {
		t.Errorf("calls %q, want one switch", got)
	}
	if m.InputMode() != runtime.SourceMic || m.switching {
		t.Errorf("mode %s switching %v", m.InputMode(), m.switching)
	}
}

// TestSwitchInputPlaceholder: the input line says how answers arrive in the mode shown.
func TestSwitchInputPlaceholder(t *testing.T) {
	b := &switchingBackend{mode: runtime.SourceTyped}
	m := switchModel(t, b, runtime.SourceTyped)
	if !strings.Contains(m.input.Placeholder, "type the candidate's answer") {
		t.Errorf("typed placeholder %q", m.input.Placeholder)
	}
	drive(t, m, press("ctrl+t"))
	if p := m.input.Placeholder; !strings.Contains(p, "microphone") || !strings.Contains(p, "ctrl+t switches to typed") {
		t.Errorf("mic placeholder %q", p)
	}
	// Typing still works while answers are spoken.
	drive(t, m, keys("type:typed anyway", "enter")...)
	if got := b.Calls(); !slices.Equal(got, []string{"switch", "submit:typed anyway"}) {
		t.Errorf("calls %q", got)
	}
}

// TestSwitchInputReadOnly: a read-only console never switches, even with a switcher.
func TestSwitchInputReadOnly(t *testing.T) {
	b := &switchingBackend{mode: runtime.SourceRoom}
	info := hotelInfo
	info.ReadOnly = true
	m := newTestModel(t, info, b)
	drive(t, m, windowSize(120, 40), press("ctrl+t"))
	if got := b.Calls(); len(got) != 0 {
		t.Errorf("read-only console called %q", got)
	}
	if m.keys.SwitchInput.Enabled() {
		t.Error("switch key enabled on a read-only console")
	}
}

// TestObserverPlaceholder: an examiner watching someone else's exam is told the candidate
// answers in the room, and how to instruct the examiner instead.
func TestObserverPlaceholder(t *testing.T) {
	info := hotelInfo
	info.Input, info.Observer = runtime.SourceRoom, true
	m := newTestModel(t, info, &switchingBackend{mode: runtime.SourceRoom})
	drive(t, m, windowSize(120, 40))
	if p := m.input.Placeholder; !strings.HasPrefix(p, "watching: the candidate answers in the room") || !strings.Contains(p, "ctrl+o") {
		t.Errorf("observer placeholder %q", p)
	}
	info.Observer = false
	m = newTestModel(t, info, &switchingBackend{mode: runtime.SourceRoom})
	if p := m.input.Placeholder; strings.HasPrefix(p, "watching") {
		t.Errorf("the bot's own console reads as an observer: %q", p)
	}
}
