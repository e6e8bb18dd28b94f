package runtime

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Turn is one candidate turn as the input layer (typed, mic, room) delivered it.
type Turn struct {
	Text       string        // empty means silence
	Confidence float64       // STT confidence 0..1; 0 with Source typed means 1
	StartedAt  time.Time     // when the candidate started speaking (zero: now - Duration)
	Duration   time.Duration // how long the candidate spoke (or was silent)
	Source     string        // typed | mic | room (default: the controller's input source)
	Latency    Latency       // audio stages measured upstream (endpointing, STT, TTS first byte)
}

func (t *Turn) validate() error {
	if math.IsNaN(t.Confidence) || t.Confidence < 0 || t.Confidence > 1 {
		return fmt.Errorf("%w: confidence %v outside 0..1", ErrInvalidTurn, t.Confidence)
	}
	if t.Duration < 0 {
		return fmt.Errorf("%w: negative duration", ErrInvalidTurn)
	}
	switch t.Source {
	case "", SourceTyped, SourceMic, SourceRoom:
	default:
		return fmt.Errorf("%w: source %q", ErrInvalidTurn, t.Source)
	}
	return nil
}

// AdminMode is how an admin instruction is delivered.
type AdminMode string

// Admin modes.
const (
	AdminImmediate AdminMode = "immediate"
	AdminQueued    AdminMode = "queued"
)

func (m AdminMode) String() string { return string(m) }

// Valid reports whether m is a known mode.
func (m AdminMode) Valid() bool { return m == AdminImmediate || m == AdminQueued }

// maxAdminRunes bounds an admin instruction's text.
const maxAdminRunes = 1000

// AdminInstruction is an examiner's instruction to the examiner bot.
type AdminInstruction struct {
	Mode   AdminMode
	Text   string
	Sender string // who sent it (recorded in the journal)
}

func (a *AdminInstruction) normalize() error {
	if !a.Mode.Valid() {
		return fmt.Errorf("%w: mode %q (want immediate or queued)", ErrInvalidAdmin, a.Mode)
	}
	a.Text = strings.TrimSpace(a.Text)
	if a.Text == "" {
		return fmt.Errorf("%w: empty text", ErrInvalidAdmin)
	}
	a.Text = TruncateRunes(a.Text, maxAdminRunes)
	if a.Sender == "" {
		a.Sender = "examiner"
	}
	return nil
}

// ControlAction is an examiner's control of the exam.
type ControlAction int

// Control actions.
const (
	ControlPause ControlAction = iota + 1
	ControlResume
	ControlSkip
	ControlAdvance
	ControlEnd
	ControlPromote // run the oldest queued admin instruction now (PromoteQueued)
)

var controlNames = map[ControlAction]string{
	ControlPause: "pause", ControlResume: "resume", ControlSkip: "skip", ControlAdvance: "advance", ControlEnd: "end",
	ControlPromote: "promote",
}

func (a ControlAction) String() string {
	if n, ok := controlNames[a]; ok {
		return n
	}
	return fmt.Sprintf("ControlAction(%d)", int(a))
}

// ParseControlAction parses "pause", "resume", "skip", "advance", "end" or "promote".
func ParseControlAction(s string) (ControlAction, error) {
	for a, n := range controlNames {
		if n == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("%w: %q", ErrInvalidControl, s)
}
