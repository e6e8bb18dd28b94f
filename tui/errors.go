package tui

import "errors"

// Named errors.
var (
	// ErrNilBackend: New was given no Backend for a console that is not read-only.
	ErrNilBackend = errors.New("tui: backend is required unless the console is read-only")
	// ErrInvalidInput: Info.Input is not one of the known input modes.
	ErrInvalidInput = errors.New("tui: unknown input mode")
	// ErrInvalidOption: an Option was given a value it cannot use.
	ErrInvalidOption = errors.New("tui: invalid option")
	// ErrInvalidSize: a screenshot was asked for at a size that cannot hold the layout.
	ErrInvalidSize = errors.New("tui: invalid size")
	// ErrReadOnly: a control was used on a read-only console (a replay).
	ErrReadOnly = errors.New("tui: console is read-only")
)
