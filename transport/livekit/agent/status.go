package agent

// State is the worker's connection to the server.
type State int

// States.
const (
	StateConnecting State = iota // dialling or registering
	StateRegistered              // registered, taking jobs
	StateLost                    // the connection dropped; reconnecting
	StateClosed                  // Run returned
)

func (s State) String() string {
	switch s {
	case StateConnecting:
		return "connecting"
	case StateRegistered:
		return "registered"
	case StateLost:
		return "lost"
	case StateClosed:
		return "closed"
	}
	return "unknown"
}
