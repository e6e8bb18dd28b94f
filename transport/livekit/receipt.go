package livekit

import (
	"encoding/json"
	"fmt"
	"sync"

	lksdk "github.com/livekit/server-sdk-go/v2"
)

// TopicReceipts carries the bot's receipts, bot → the sender of a message: a typed answer, an
// examiner's command or a "ready" that carried an "id" is answered with {"type":"received"} and
// that id once the bot has taken it. A reliable data packet is reliable only within one
// connection: livekit-client and the Go SDK drop what was buffered when they rebuild a
// connection, and their send can succeed into a data channel that is being torn down. A sender
// keeps each message until its receipt and sends it again after a reconnection; the bot takes
// an id once per sender, so a message sent twice counts once.
const TopicReceipts = "exam-input-receipts"

// msgReceived is the one message type on TopicReceipts.
const msgReceived = "received"

// maxMessageID bounds a message id; ids are words of a short alphabet (checkMessageID).
const maxMessageID = 64

// takenPerSender is how many ids the bot remembers per sender: far more than a sender has
// unanswered at once, so a late copy is always known.
const takenPerSender = 256

// checkMessageID accepts "" (no receipt asked) or 1 to maxMessageID characters of
// [A-Za-z0-9._:-].
func checkMessageID(id string) error {
	if len(id) > maxMessageID {
		return fmt.Errorf("%w: id has %d characters (limit %d)", ErrInvalidMessage, len(id), maxMessageID)
	}
	for _, c := range []byte(id) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == ':', c == '-':
		default:
			return fmt.Errorf("%w: id may hold only letters, digits and . _ : -", ErrInvalidMessage)
		}
	}
	return nil
}

type receiptWire struct {
	botHeader
	ID string `json:"id"`
	// Refused is set when the bot refused the message (a sender without the topic's role, a
	// field out of range): the error code examiners are shown for it.
	Refused string `json:"refused,omitempty"`
}

// Receipt is the bot's answer to a message that carried an id.
type Receipt struct {
	ID      string
	Refused string // the system_error code of the refusal; "" when the message was taken
}

// EncodeReceipt builds a TopicReceipts packet for the message id.
func EncodeReceipt(id string) ([]byte, error) {
	return encodeReceipt(Receipt{ID: id})
}

func encodeReceipt(rc Receipt) ([]byte, error) {
	id := rc.ID
	if id == "" {
		return nil, fmt.Errorf("%w: a receipt needs an id", ErrInvalidMessage)
	}
	if err := checkMessageID(id); err != nil {
		return nil, err
	}
	return json.Marshal(receiptWire{botHeader: botHeader{WireVersion, msgReceived}, ID: id, Refused: rc.Refused})
}

// ParseReceipt reads a TopicReceipts packet.
func ParseReceipt(data []byte) (Receipt, error) {
	var m receiptWire
	if err := decodeBotPacket(data, &m, TopicReceipts, msgReceived); err != nil {
		return Receipt{}, err
	}
	switch {
	case m.ID == "":
		return Receipt{}, fmt.Errorf("%w: a receipt without an id", ErrInvalidMessage)
	case len(m.Refused) > maxWireWord:
		return Receipt{}, fmt.Errorf("%w: refused has %d characters (limit %d)", ErrInvalidMessage, len(m.Refused), maxWireWord)
	}
	if err := checkMessageID(m.ID); err != nil {
		return Receipt{}, err
	}
	return Receipt{ID: m.ID, Refused: m.Refused}, nil
}

// takenIDs remembers the last takenPerSender ids of each sender, so that a message sent again
// (its receipt was lost, or the sender resent it after a reconnection) is taken once.
type takenIDs struct {
	mu       sync.Mutex
	bySender map[string]*idRing
}

type idRing struct {
	ids  []string
	next int
	set  map[string]bool
}

// take records id from sender and reports whether it is new.
func (t *takenIDs) take(sender, id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.bySender == nil {
		t.bySender = map[string]*idRing{}
	}
	ring := t.bySender[sender]
	if ring == nil {
		ring = &idRing{ids: make([]string, takenPerSender), set: map[string]bool{}}
		t.bySender[sender] = ring
	}
	if ring.set[id] {
		return false
	}
	delete(ring.set, ring.ids[ring.next])
	ring.ids[ring.next] = id
	ring.set[id] = true
	ring.next = (ring.next + 1) % len(ring.ids)
	return true
}

// admit answers a message that asked for a receipt and reports whether the exam should have
// it: false for a copy of a typed answer or command already taken. A refused message is
// answered with its refusal; a "ready" is always handled (a copy means the sender did not get
// the replay it asked for either) and answered after its replay (replayAsked), so that its
// receipt also says the replay went out before it; a message without an id is taken as it
// comes.
func (r *Room) admit(msg inbound) bool {
	var rc Receipt
	var sender string
	switch {
	case msg.text != nil && msg.text.Ready, msg.command != nil && msg.command.Kind == CommandReady:
		return true
	case msg.text != nil:
		rc.ID, sender = msg.text.ID, msg.text.Sender
	case msg.command != nil:
		rc.ID, sender = msg.command.ID, msg.command.Sender
	case msg.reject != nil:
		rc.ID, sender, rc.Refused = msg.reject.ID, msg.reject.Sender, string(msg.reject.code())
	}
	if rc.ID == "" || sender == "" {
		return true
	}
	first := msg.reject != nil || r.taken.take(sender, rc.ID)
	r.answer(sender, rc)
	if !first {
		r.stats.duplicates.Add(1)
		r.log.Info("message sent again dropped", "from", sender, "id", rc.ID)
	}
	return first
}

// answer queues a receipt for sender, after what is queued for the room already.
func (r *Room) answer(sender string, rc Receipt) {
	if rc.ID == "" || sender == "" {
		return
	}
	if data, err := encodeReceipt(rc); err == nil {
		r.out.push(outItem{receipt: data, to: sender})
	}
}

// sendReceipt sends a TopicReceipts packet to the one participant it answers. The server routes
// it by identity: the bot's SDK may not have been told of a sender who has just (re)joined (the
// bot learnt of it from the server), and one who has left asks again when it is back.
func (r *Room) sendReceipt(lk *lksdk.Room, to string, data []byte) error {
	if err := lk.LocalParticipant.PublishDataPacket(lksdk.UserData(data),
		lksdk.WithDataPublishTopic(TopicReceipts),
		lksdk.WithDataPublishReliable(true),
		lksdk.WithDataPublishDestination([]string{to})); err != nil {
		return fmt.Errorf("%w: %w", ErrNotConnected, err)
	}
	r.stats.packetsSent.Add(1)
	return nil
}
