package voicepath

import "errors"

// Named errors of the voice path.
var (
	// ErrInvalidConfig is returned by New given parts or options it cannot use.
	ErrInvalidConfig = errors.New("voicepath: invalid configuration")
	// ErrClosed is returned by WaitIdle once the path is closed.
	ErrClosed = errors.New("voicepath: closed")
	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("voicepath: already started")
)
