package sessions

import (
	"fmt"

	"github.com/examtui/examtui/internal/textsafe"
)

// RedactionMode is what the journal does with a payload that carries something that looks
// like a credential. Exam records are kept for years and exported; keys and room tokens must
// never be among them.
type RedactionMode int

// Redaction modes.
const (
	RedactMask   RedactionMode = iota // replace the value with [REDACTED] and store the event
	RedactRefuse                      // refuse the event with ErrSecretInPayload
)

func (m RedactionMode) String() string {
	switch m {
	case RedactMask:
		return "mask"
	case RedactRefuse:
		return "refuse"
	}
	return fmt.Sprintf("RedactionMode(%d)", int(m))
}

// Redacted replaces a secret-looking value.
const Redacted = textsafe.Redacted
