package livekit

import (
	"errors"
)

// Named errors.
var (
	ErrUnknownRole      = errors.New("unknown role")
	ErrInvalidConfig    = errors.New("invalid livekit configuration")
	ErrInvalidMessage   = errors.New("invalid data message")
	ErrClosed           = errors.New("room closed")
	ErrNotConnected     = errors.New("not connected to the room")
	ErrEventTooLarge    = errors.New("event larger than a data packet")
	ErrWrongRole        = errors.New("participant role not allowed for this message")
	ErrUnknownSender    = errors.New("sender not known to the room")
	ErrCandidateMissing = errors.New("no candidate in the room")
	ErrNoSpeech         = errors.New("the bot was joined without speech (WithoutSpeech)")
)
