package runtime

import "fmt"

// AdminMode is how an examiner's instruction is delivered, and the mode an admin_instruction
// event records.
type AdminMode string

// Admin modes.
const (
	AdminUnknown AdminMode = ""
	// AdminImmediate interrupts speech and runs the instruction at once.
	AdminImmediate AdminMode = "immediate"
	// AdminQueued joins the next turn's context.
	AdminQueued AdminMode = "queued"
	// AdminControl marks an admin_instruction event recording a control action (pause,
	// resume, skip, advance, end; the action is its text). It is never an instruction's mode.
	AdminControl AdminMode = "control"
	// AdminSay speaks the examiner's own words to the candidate as they are (through the output
	// filters, never through the examiner): the one way an examiner's text reaches the candidate
	// word for word.
	AdminSay AdminMode = "say"
)

// AdminModes lists every admin mode.
var AdminModes = []AdminMode{AdminImmediate, AdminQueued, AdminControl, AdminSay}

func (m AdminMode) String() string { return string(m) }

// Valid reports whether m is a known mode.
func (m AdminMode) Valid() bool { return isKnown(m, AdminModes) }

// Instruction reports whether m is a mode an instruction can be sent with: immediate, queued
// or say.
func (m AdminMode) Instruction() bool {
	return m == AdminImmediate || m == AdminQueued || m == AdminSay
}

// Interrupts reports whether an instruction sent with m cuts off what is being said: an
// immediate one and a line to say do, a queued one waits for the next turn.
func (m AdminMode) Interrupts() bool { return m == AdminImmediate || m == AdminSay }

// ParseAdminMode parses "immediate", "queued", "control" or "say".
func ParseAdminMode(s string) (AdminMode, error) { return parseEnum("admin mode", s, AdminModes) }

// ParseInstructionMode parses the mode of an instruction: "immediate", "queued" or "say".
func ParseInstructionMode(s string) (AdminMode, error) {
	m, err := ParseAdminMode(s)
	if err == nil && !m.Instruction() {
		return AdminUnknown, fmt.Errorf("%w: admin mode %q (want immediate, queued or say)", ErrUnknownValue, s)
	}
	if err != nil {
		return AdminUnknown, fmt.Errorf("%w (want immediate, queued or say)", err)
	}
	return m, nil
}

// AdminStatus is what became of an admin instruction (admin_instruction's status).
type AdminStatus string

// Admin statuses.
const (
	AdminStatusUnknown AdminStatus = ""
	AdminReceived      AdminStatus = "received" // recorded; a queued one waits for the next turn
	AdminApplied       AdminStatus = "applied"  // an immediate instruction ran, or a control was applied
	AdminConsumed      AdminStatus = "consumed" // a queued instruction went into a turn's context
	AdminPromoted      AdminStatus = "promoted" // a queued instruction was made immediate
	AdminFailed        AdminStatus = "failed"   // an immediate instruction could not run
	// AdminNotActionable: the examiner could not act on the instruction (the offline examiner
	// only acts on lines addressed to the candidate); nothing was said for it and it left the
	// queue, so the supervising examiner sees it rather than a silent "consumed".
	AdminNotActionable AdminStatus = "not_actionable"
)

// AdminStatuses lists every admin status.
var AdminStatuses = []AdminStatus{AdminReceived, AdminApplied, AdminConsumed, AdminPromoted, AdminFailed, AdminNotActionable}

func (s AdminStatus) String() string { return string(s) }

// Valid reports whether s is a known admin status.
func (s AdminStatus) Valid() bool { return isKnown(s, AdminStatuses) }

// ParseAdminStatus parses an admin status.
func ParseAdminStatus(s string) (AdminStatus, error) {
	return parseEnum("admin status", s, AdminStatuses)
}

// ControlAction is an examiner's control of the exam. It travels as its name (the room wire's
// control message, an admin_instruction's text), never as a number; the zero value is unknown.
type ControlAction int

// Control actions.
const (
	ControlUnknown ControlAction = iota
	ControlPause
	ControlResume
	ControlSkip
	ControlAdvance
	ControlEnd
	ControlPromote // run the oldest queued admin instruction now (PromoteQueued)
)

// ControlActions lists every control action.
var ControlActions = []ControlAction{ControlPause, ControlResume, ControlSkip, ControlAdvance, ControlEnd, ControlPromote}

var controlNames = map[ControlAction]string{
	ControlPause: "pause", ControlResume: "resume", ControlSkip: "skip", ControlAdvance: "advance", ControlEnd: "end",
	ControlPromote: "promote",
}

func (a ControlAction) String() string {
	if n, ok := controlNames[a]; ok {
		return n
	}
	if a == ControlUnknown {
		return "unknown"
	}
	return fmt.Sprintf("ControlAction(%d)", int(a))
}

// Valid reports whether a is a known control action.
func (a ControlAction) Valid() bool { _, ok := controlNames[a]; return ok }

// ParseControlAction parses "pause", "resume", "skip", "advance", "end" or "promote".
func ParseControlAction(s string) (ControlAction, error) {
	for _, a := range ControlActions {
		if controlNames[a] == s {
			return a, nil
		}
	}
	return ControlUnknown, fmt.Errorf("%w: control action %q (want pause, resume, skip, advance, end or promote)", ErrInvalidControl, s)
}

// MarshalText encodes the action as its name, so it is never written as a number.
func (a ControlAction) MarshalText() ([]byte, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("%w: %d", ErrInvalidControl, int(a))
	}
	return []byte(controlNames[a]), nil
}

// UnmarshalText decodes an action's name.
func (a *ControlAction) UnmarshalText(b []byte) error {
	v, err := ParseControlAction(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}
