package livekit

import (
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
)

// maxHeldPackets bounds the event packets a client holds for senders not announced yet.
const maxHeldPackets = 1024

// heldPacket is an event packet whose sender the server has not announced to this client yet.
type heldPacket struct {
	identity string
	payload  []byte
	at       time.Time
}

// participant returns the remote participant with this identity, or nil if the server has not
// announced it.
func (c *Client) participant(identity string) *lksdk.RemoteParticipant {
	if lk := c.conn.room(); lk != nil {
		return lk.GetParticipantByIdentity(identity)
	}
	return nil
}

// senderOf is the participant a packet came from: the SDK's, or the one of its identity when
// the SDK gave none (a packet that overtook its sender's announcement, as after a rejoin).
func (c *Client) senderOf(params lksdk.DataReceiveParams) *lksdk.RemoteParticipant {
	if params.Sender != nil || params.SenderIdentity == "" {
		return params.Sender
	}
	return c.participant(params.SenderIdentity)
}

// holdLocked keeps a packet from a sender the server has not announced yet, and reports whether
// it did. livekit-server announces a participant that publishes no media only on its 3 s
// participant batch, and the bot's voice track starts a moment after it joined, so a bot that
// joins after this client and speaks at once is heard before it is announced. Its role can only
// be known from that announcement, so the packet waits for it (OnParticipantConnected) up to
// unknownSenderWait, then is judged as from an unknown sender. c.dataMu is held.
func (c *Client) holdLocked(identity string, payload []byte) bool {
	if len(c.held) >= maxHeldPackets {
		return false
	}
	c.held = append(c.held, heldPacket{identity: identity, payload: payload, at: time.Now()})
	time.AfterFunc(unknownSenderWait, func() {
		if c.ctx.Err() != nil {
			return
		}
		c.dataMu.Lock()
		defer c.dataMu.Unlock()
		c.releaseHeldLocked(true)
	})
	return true
}

// releaseHeldLocked handles, in arrival order, the held packets whose sender is now known, and
// (when expired is true) those that waited unknownSenderWait in vain. c.dataMu is held.
func (c *Client) releaseHeldLocked(expired bool) {
	if len(c.held) == 0 {
		return
	}
	now := time.Now()
	keep := c.held[:0]
	for _, h := range c.held {
		rp := c.participant(h.identity)
		if rp == nil && !(expired && now.Sub(h.at) >= unknownSenderWait) {
			keep = append(keep, h)
			continue
		}
		c.handleEvent(rp, h.identity, h.payload)
	}
	clear(c.held[len(keep):])
	c.held = keep
}
