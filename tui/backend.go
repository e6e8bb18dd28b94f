package tui

import (
	"fmt"

	"github.com/examtui/examtui/runtime"
)

// Backend is what the console drives: a local exam, a LiveKit session, or a replay. Calls run
// inside tea.Cmds, never in Update, so an implementation may block briefly (it should honour
// its own timeouts).
type Backend interface {
	// SubmitText sends a typed candidate answer.
	SubmitText(text string) error
	// Control applies an examiner control: pause | resume | skip | advance | end.
	Control(action runtime.ControlAction) error
	// Admin sends an examiner instruction; mode is immediate | queued.
	Admin(mode runtime.AdminMode, text string) error
}

// Info describes the session for the status line.
type Info struct {
	Title     string              // exam title
	Examiner  string              // "offline" or the model name
	Input     runtime.InputSource // typed | mic | room (shown in the status line); empty means typed
	SessionID string
	// ReadOnly marks a replay or an observer console: no input line, no controls, and the
	// Backend may be nil.
	ReadOnly bool
	// Observer marks an examiner's console on someone else's exam (examtui watch): controls
	// and instructions work, but the candidate answers elsewhere, so the input line says so.
	Observer bool
	// Notice is shown in the footer when the console opens, as a warning: e.g. that the
	// candidate's speech will not be understood in a room without a recogniser.
	Notice string
}

func (i *Info) validate() error {
	if i.Input == runtime.SourceUnknown {
		i.Input = runtime.SourceTyped
	}
	if !i.Input.Valid() {
		return fmt.Errorf("%w: %q (want typed, mic or room)", ErrInvalidInput, i.Input)
	}
	return nil
}

// BackendFuncs adapts three functions to a Backend, so wiring a controller or a LiveKit
// session needs no new type. A nil function refuses with ErrReadOnly.
type BackendFuncs struct {
	SubmitTextFunc func(text string) error
	ControlFunc    func(action runtime.ControlAction) error
	AdminFunc      func(mode runtime.AdminMode, text string) error
}

// SubmitText calls SubmitTextFunc.
func (f BackendFuncs) SubmitText(text string) error {
	if f.SubmitTextFunc == nil {
		return ErrReadOnly
	}
	return f.SubmitTextFunc(text)
}

// Control calls ControlFunc.
func (f BackendFuncs) Control(action runtime.ControlAction) error {
	if f.ControlFunc == nil {
		return ErrReadOnly
	}
	return f.ControlFunc(action)
}

// Admin calls AdminFunc.
func (f BackendFuncs) Admin(mode runtime.AdminMode, text string) error {
	if f.AdminFunc == nil {
		return ErrReadOnly
	}
	return f.AdminFunc(mode, text)
}

// InputSwitcher is implemented by a Backend that can take answers both typed and spoken (a
// local exam with --mic). The console's switch-input key calls it and shows the mode it
// returns in the status line; with a Backend that does not implement it, the key is disabled.
type InputSwitcher interface {
	// SwitchInput toggles between typed and spoken (mic) answers and returns the new mode.
	SwitchInput() (runtime.InputSource, error)
}

// Historian may be implemented by a Backend whose exam did not start empty: a session resumed
// after its process died. New applies History before any event of the live stream, which
// carries only what happens after the resume, so the console opens on the stored exam (node,
// clocks and budgets, evidence, transcript) instead of an empty one.
type Historian interface {
	History() []runtime.Event
}

// InputSwitchChecker may be implemented by an InputSwitcher whose ability to switch depends on
// how it was started (a local exam run without a microphone path implements SwitchInput but
// can only refuse). New asks once: CanSwitchInput false disables the switch-input key and hides
// it from the help, as for a Backend that is no InputSwitcher at all.
type InputSwitchChecker interface {
	CanSwitchInput() bool
}
