package tui

import "fmt"

// Backend is what the console drives: a local exam, a LiveKit session, or a replay. Calls run
// inside tea.Cmds, never in Update, so an implementation may block briefly (it should honour
// its own timeouts).
type Backend interface {
	// SubmitText sends a typed candidate answer.
	SubmitText(text string) error
	// Control applies an examiner control: pause | resume | skip | advance | end.
	Control(action string) error
	// Admin sends an examiner instruction; mode is immediate | queued.
	Admin(mode, text string) error
}

// Control actions passed to Backend.Control.
const (
	ActionPause   = "pause"
	ActionResume  = "resume"
	ActionSkip    = "skip"
	ActionAdvance = "advance"
	ActionEnd     = "end"
)

// Admin instruction modes passed to Backend.Admin.
const (
	AdminImmediate = "immediate"
	AdminQueued    = "queued"
)

// InputMode says where candidate answers come from; it is shown in the status line.
type InputMode string

// Input modes.
const (
	InputTyped InputMode = "typed"
	InputMic   InputMode = "mic"
	InputRoom  InputMode = "room"
)

func (m InputMode) String() string { return string(m) }

func (m InputMode) valid() bool {
	switch m {
	case InputTyped, InputMic, InputRoom:
		return true
	}
	return false
}

// Info describes the session for the status line.
type Info struct {
	Title     string    // exam title
	Examiner  string    // "offline" or the model name
	Input     InputMode // typed | mic | room; empty means typed
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
	if i.Input == "" {
		i.Input = InputTyped
	}
	if !i.Input.valid() {
		return fmt.Errorf("%w: %q (want typed, mic or room)", ErrInvalidInput, i.Input)
	}
	return nil
}

// BackendFuncs adapts three functions to a Backend, so wiring a controller or a LiveKit
// session needs no new type. A nil function refuses with ErrReadOnly.
type BackendFuncs struct {
	SubmitTextFunc func(text string) error
	ControlFunc    func(action string) error
	AdminFunc      func(mode, text string) error
}

// SubmitText calls SubmitTextFunc.
func (f BackendFuncs) SubmitText(text string) error {
	if f.SubmitTextFunc == nil {
		return ErrReadOnly
	}
	return f.SubmitTextFunc(text)
}

// Control calls ControlFunc.
func (f BackendFuncs) Control(action string) error {
	if f.ControlFunc == nil {
		return ErrReadOnly
	}
	return f.ControlFunc(action)
}

// Admin calls AdminFunc.
func (f BackendFuncs) Admin(mode, text string) error {
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
	SwitchInput() (InputMode, error)
}

// InputSwitchChecker may be implemented by an InputSwitcher whose ability to switch depends on
// how it was started (a local exam run without a microphone path implements SwitchInput but
// can only refuse). New asks once: CanSwitchInput false disables the switch-input key and hides
// it from the help, as for a Backend that is no InputSwitcher at all.
type InputSwitchChecker interface {
	CanSwitchInput() bool
}
