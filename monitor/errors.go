package monitor

import "errors"

// Named errors.
var (
	ErrInvalidThreshold = errors.New("invalid monitor threshold")
	ErrInvalidOption    = errors.New("invalid monitor option")
)
