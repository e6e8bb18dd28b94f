package runtime

import "errors"

// Named errors.
var (
	ErrUnknownEvent = errors.New("unknown event type")
)
