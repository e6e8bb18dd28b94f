package livekit

// ConnState is the state of a participant's connection to the room.
type ConnState int

// Connection states.
const (
	StateConnecting ConnState = iota + 1
	StateConnected
	StateReconnecting
	StateClosed
)

func (s ConnState) String() string {
	switch s {
	case StateConnecting:
		return "connecting"
	case StateConnected:
		return "connected"
	case StateReconnecting:
		return "reconnecting"
	case StateClosed:
		return "closed"
	default:
		return "unknown"
	}
}
