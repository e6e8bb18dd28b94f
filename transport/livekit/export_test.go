package livekit

// WithLateDataChannel models, in tests, a client whose data channel to the server opens late
// (a busy machine): event packets that arrive while open() is false are lost, as the server's
// packets to a channel not open yet are, and each "ready" the client says waits for
// beforeReady first, as a real one can only be sent once the connection is up.
func WithLateDataChannel(open func() bool, beforeReady func()) ClientOption {
	return func(o *clientOptions) { o.recvOpen, o.readyGate = open, beforeReady }
}
