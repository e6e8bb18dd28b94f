package markconsole

import "errors"

var (
	// ErrInvalidOption is a console option or sheet that cannot be used.
	ErrInvalidOption = errors.New("markconsole: invalid option")
	// ErrNoJustification is a mark saved without a justification: every mark says why.
	ErrNoJustification = errors.New("markconsole: a mark needs a justification")
)
