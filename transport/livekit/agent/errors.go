package agent

import "errors"

// Named errors.
var (
	ErrInvalidConfig = errors.New("invalid agent worker configuration")
	ErrRegister      = errors.New("agent worker registration failed")
	ErrNotConnected  = errors.New("agent worker not connected to the server")
	ErrClosed        = errors.New("agent worker closed")
)
