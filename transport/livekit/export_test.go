package livekit

import "time"

// WithLateDataChannel models, in tests, a client whose data channel to the server opens late
// (a busy machine): event packets that arrive while open() is false are lost, as the server's
// packets to a channel not open yet are, and each "ready" the client says waits for
// beforeReady first, as a real one can only be sent once the connection is up.
func WithLateDataChannel(open func() bool, beforeReady func()) ClientOption {
	return func(o *clientOptions) { o.recvOpen, o.readyGate = open, beforeReady }
}

// OnSend has the voice's current track tell fn of each frame of audio as its pacer sends it
// (the time it really left), for tests that measure on a loaded machine.
func (v *Voice) OnSend(fn func(frame []int16, at time.Time)) {
	v.mu.Lock()
	track := v.track
	v.mu.Unlock()
	if track != nil {
		track.mu.Lock()
		track.onSend = fn
		track.mu.Unlock()
	}
}

// Message kinds for WithLosses.
const (
	KindAnswer  = msgCandidateText
	KindAdmin   = msgAdminInstruction
	KindControl = msgControl
)

// WithLosses has a client lose the first sends of its messages of one kind (the send reports
// success, as one into a connection being torn down can) and the first receipts for them.
func WithLosses(kind string, sends, receipts int) ClientOption {
	return func(o *clientOptions) { o.lose = &lossModel{kind: kind, sends: sends, receipts: receipts} }
}

// WithReceiptHook has a client tell fn of each receipt it receives from the bot, in order with
// the events it receives.
func WithReceiptHook(fn func(Receipt)) ClientOption {
	return func(o *clientOptions) { o.receiptSeen = fn }
}
