package livekit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
)

// resendEvery is how long the client waits for the bot's receipt before sending a message
// again. A copy costs the bot a lookup (it takes each id once), so the wait can be short.
const resendEvery = time.Second

// receipts are the client's messages waiting for the bot's receipt (TopicReceipts).
type receipts struct {
	mu      sync.Mutex
	prefix  string // this client's own, so ids never meet another sender's
	next    uint64
	waiting map[string]*waitingMessage
}

// waitingMessage is closed (done) when its receipt arrives; refused is the receipt's refusal.
type waitingMessage struct {
	done    chan struct{}
	refused string
}

func (p *receipts) newID() (string, *waitingMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prefix == "" {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		p.prefix = hex.EncodeToString(b)
		p.waiting = map[string]*waitingMessage{}
	}
	p.next++
	id := p.prefix + "-" + strconv.FormatUint(p.next, 10)
	w := &waitingMessage{done: make(chan struct{})}
	p.waiting[id] = w
	return id, w
}

func (p *receipts) forget(id string) {
	p.mu.Lock()
	delete(p.waiting, id)
	p.mu.Unlock()
}

// received ends the wait of the receipt's id; a receipt for an id the client no longer waits
// for (a second receipt for a copy) does nothing.
func (p *receipts) received(rc Receipt) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w, ok := p.waiting[rc.ID]; ok {
		w.refused = rc.Refused
		close(w.done)
		delete(p.waiting, rc.ID)
	}
}

// onReceipt takes a TopicReceipts packet from the bot.
func (c *Client) onReceipt(rp *lksdk.RemoteParticipant, payload []byte) {
	if !c.isBot(rp) {
		return
	}
	rc, err := ParseReceipt(payload)
	if err != nil {
		c.log.Warn("malformed receipt dropped", "err", err)
		return
	}
	if c.lose != nil && c.lose.receipt(rc.ID) {
		return
	}
	if c.receiptSeen != nil {
		c.receiptSeen(rc)
	}
	c.receipts.received(rc)
}

// sendConfirmed sends a message to the bot and returns once the bot has confirmed it, sending
// it again every resendEvery (through reconnections, and while the bot is away) until then.
// The bot takes each id once, so the exam has the message once however often it was sent.
// When ctx ends first it returns ErrNoReceipt, wrapping the last send's error if there was one;
// a message the bot refused (this participant may not send it, or a field is out of range)
// returns ErrRefused with the refusal's code.
func (c *Client) sendConfirmed(ctx context.Context, topic, kind string, encode func(id string) ([]byte, error)) error {
	id, w := c.receipts.newID()
	defer c.receipts.forget(id)
	data, err := encode(id)
	if err != nil {
		return err
	}
	var last error
	for {
		if c.lose != nil && c.lose.send(kind, id) {
			last = nil // lost on the way, though the send reported success (tests)
		} else if err := c.sendToBot(ctx, topic, data); err == nil {
			last = nil
		} else {
			if errors.Is(err, ErrClosed) {
				return err
			}
			if ctx.Err() == nil {
				last = err
			}
		}
		select {
		case <-w.done:
			if w.refused != "" {
				return fmt.Errorf("%w: %s", ErrRefused, w.refused)
			}
			return nil
		case <-c.ctx.Done():
			return ErrClosed
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("%w (message %s): %w", ErrNoReceipt, id, last)
			}
			return fmt.Errorf("%w (message %s): %w", ErrNoReceipt, id, ctx.Err())
		case <-time.After(resendEvery):
		}
	}
}

// lossModel loses, in tests, the first sends of a client's messages of one kind and the first
// receipts for them, as a connection being rebuilt does (export_test.go).
type lossModel struct {
	mu       sync.Mutex
	kind     string          // the message type whose sends and receipts are lost
	sends    int             // sends still to lose
	receipts int             // receipts still to lose
	ids      map[string]bool // the ids of the kind's messages
}

func (l *lossModel) send(kind, id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if kind != l.kind {
		return false
	}
	if l.ids == nil {
		l.ids = map[string]bool{}
	}
	l.ids[id] = true
	if l.sends == 0 {
		return false
	}
	l.sends--
	return true
}

func (l *lossModel) receipt(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ids[id] || l.receipts == 0 {
		return false
	}
	l.receipts--
	return true
}
