package controlhttp

import "errors"

// Named errors.
var (
	// ErrNoToken: the server would listen off loopback without a bearer token.
	ErrNoToken = errors.New("a bearer token is required to listen off loopback (set " + EnvToken + ")")
	// ErrNoSpec: New was given no spec to serve.
	ErrNoSpec = errors.New("controlhttp: no exam spec")
	// ErrNoStore: New was given no session store.
	ErrNoStore = errors.New("controlhttp: no session store")
	// ErrClosed: the server is shutting down.
	ErrClosed = errors.New("controlhttp: server closed")
	// ErrTooManySessions: the server holds its cap of open sessions.
	ErrTooManySessions = errors.New("too many open sessions")
	// ErrUnknownSession: no open session has that id.
	ErrUnknownSession = errors.New("unknown session")
)
