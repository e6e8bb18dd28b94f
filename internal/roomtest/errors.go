package roomtest

import "errors"

// Named errors.
var (
	// ErrInvalidOption is a harness option out of range (a zero or negative duration, no URL
	// or no credentials).
	ErrInvalidOption = errors.New("invalid room test option")
	// ErrFirstChunkTimeout means the examiner did not start replying within the reply timeout.
	ErrFirstChunkTimeout = errors.New("first-chunk timeout")
	// ErrTransport means the room connection failed: a dead or unreachable server, or a
	// participant that lost the connection and did not get it back.
	ErrTransport = errors.New("room transport failed")
)
