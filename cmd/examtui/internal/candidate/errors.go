package candidate

import "errors"

// Named errors.
var (
	// ErrInvalidConfig reports a server or invite that cannot work as given.
	ErrInvalidConfig = errors.New("invalid candidate server configuration")
	// ErrInvalidBaseURL reports a serve URL a link cannot be built on.
	ErrInvalidBaseURL = errors.New("invalid serve URL")
)
