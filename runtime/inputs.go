package runtime

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/examtui/examtui/internal/textsafe"
)

// Turn is one candidate turn as the input layer (typed, mic, room) delivered it.
type Turn struct {
	Text       string        // empty means silence
	Confidence float64       // STT confidence 0..1; 0 with Source typed means 1
	StartedAt  time.Time     // when the candidate started speaking (zero: now - Duration)
	Duration   time.Duration // how long the candidate spoke (or was silent)
	Source     InputSource   // typed | mic | room (default: the controller's input source)
	Latency    Latency       // audio stages measured upstream (endpointing, STT, TTS first byte)
}

// Bounds of a turn sent as text (typed, or by a room or a bot: the room wire and the controller
// server take the same), declared once here. A spoken turn's transcript is not capped: what the
// candidate said is kept whole.
const (
	// MaxTurnTextRunes bounds the text of a typed or sent turn.
	MaxTurnTextRunes = 4000
	// MaxTurnDuration bounds how long one turn can have lasted.
	MaxTurnDuration = time.Hour
)

func (t *Turn) validate() error {
	if math.IsNaN(t.Confidence) || t.Confidence < 0 || t.Confidence > 1 {
		return fmt.Errorf("%w: confidence %v outside 0..1", ErrInvalidTurn, t.Confidence)
	}
	if t.Duration < 0 {
		return fmt.Errorf("%w: negative duration", ErrInvalidTurn)
	}
	if t.Duration > MaxTurnDuration {
		return fmt.Errorf("%w: duration %v over %v", ErrInvalidTurn, t.Duration, MaxTurnDuration)
	}
	if t.Source == SourceTyped || t.Source == SourceRoom {
		if n := utf8.RuneCountInString(t.Text); n > MaxTurnTextRunes {
			return fmt.Errorf("%w: text has %d characters (limit %d)", ErrInvalidTurn, n, MaxTurnTextRunes)
		}
	}
	switch t.Source {
	case "", SourceTyped, SourceMic, SourceRoom:
	default:
		return fmt.Errorf("%w: source %q", ErrInvalidTurn, t.Source)
	}
	if strings.TrimSpace(t.Text) != "" && !Printable(t.Text) {
		// Control characters alone are no answer; they must not use up a follow-up as one.
		return fmt.Errorf("%w: text has no printable character", ErrInvalidTurn)
	}
	return nil
}

// Printable reports whether s holds something a person could read once the characters no
// screen shows (controls, bidirectional overrides, invalid bytes) are gone: the one rule for
// an answer, typed at a console or sent by a room candidate, that is really empty.
func Printable(s string) bool { return strings.TrimSpace(textsafe.Visible(s)) != "" }

// maxAdminRunes bounds an admin instruction's text.
const maxAdminRunes = 1000

// AdminInstruction is an examiner's instruction to the examiner bot.
type AdminInstruction struct {
	Mode   AdminMode
	Text   string
	Sender string // who sent it (recorded in the journal)
}

func (a *AdminInstruction) normalize() error {
	if !a.Mode.Instruction() {
		return fmt.Errorf("%w: mode %q (want immediate, queued or say)", ErrInvalidAdmin, a.Mode)
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
