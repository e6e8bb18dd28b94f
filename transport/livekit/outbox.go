package livekit

import (
	"context"
	"fmt"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/runtime"
)

// MaxEventPacket is the largest event envelope sent in one data packet. LiveKit forwards
// reliable packets up to 64 KiB; the margin leaves room for the packet's own framing.
const MaxEventPacket = 60 * 1024

// flushTimeout bounds how long Close waits for queued events to leave.
const flushTimeout = 3 * time.Second

// outItem is one event to send: to its audiences by role, or, for a replay, only to one
// participant (still within that participant's audience).
type outItem struct {
	ev     runtime.Event
	to     string
	replay bool
	asked  bool // a replay the recipient asked for: sent even what the ledger says it was sent
	// speech is a TopicSpeech packet (speech_wire.go) to send in its turn instead of an event.
	speech []byte
	// receipt is a TopicReceipts packet (receipt.go) for the participant to.
	receipt []byte
}

// Publish queues an event for the room: examiners get it whole, the candidate gets
// CandidateView of it, anyone else nothing. It never blocks on the network; events queued
// while the bot is reconnecting are sent once it is back.
func (r *Room) Publish(ev runtime.Event) error {
	if r.ctx.Err() != nil {
		return ErrClosed
	}
	r.mu.Lock()
	if ev.SessionID != "" {
		r.lastSession = ev.SessionID
	}
	if r.o.replay == nil && ev.Seq > 0 {
		r.history = append(r.history, ev)
	}
	r.mu.Unlock()
	r.out.push(outItem{ev: ev})
	return nil
}

// Deliver is Publish for a runtime.Fanout subscriber.
func (r *Room) Deliver(ev runtime.Event) {
	if err := r.Publish(ev); err != nil {
		r.log.Warn("event not sent to the room", "seq", ev.Seq, "event", ev.Event.String(), "err", err)
	}
}

// eventsFrom returns the session's events with seq >= from.
func (r *Room) eventsFrom(from int64) []runtime.Event {
	if r.o.replay != nil {
		return r.o.replay(from)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var evs []runtime.Event
	for _, ev := range r.history {
		if ev.Seq >= from {
			evs = append(evs, ev)
		}
	}
	return evs
}

// replayTo queues the events from seq from for one participant. Receivers drop the seqs they
// already have.
func (r *Room) replayTo(identity string, from int64) {
	evs := r.eventsFrom(from)
	if len(evs) == 0 {
		return
	}
	r.stats.replays.Add(1)
	r.log.Info("replaying events", "to", identity, "from", from, "count", len(evs))
	for _, ev := range evs {
		r.out.push(outItem{ev: ev, to: identity, replay: true})
	}
}

// askedReplayGap is the least time between two replays a client asks for: a
// client says "ready" once or twice per connection, so more is noise, and a hostile one must
// not make the bot send the whole history over and over.
const askedReplayGap = time.Second

// replayAsked answers a candidate's or an examiner's "ready": the whole of its share of the
// events (send addresses each by the recipient's role), ledger or not: what the ledger counts as sent may have gone to a data channel that was not open yet.
func (r *Room) replayAsked(identity string) {
	now := time.Now()
	r.mu.Lock()
	if r.askedAt == nil {
		r.askedAt = map[string]time.Time{}
	}
	last, seen := r.askedAt[identity]
	if seen && now.Sub(last) < askedReplayGap {
		r.mu.Unlock()
		return
	}
	r.askedAt[identity] = now
	r.mu.Unlock()
	evs := r.eventsFrom(1)
	r.stats.replays.Add(1)
	r.log.Info("replaying events the client asked for", "to", identity, "count", len(evs))
	for _, ev := range evs {
		r.out.push(outItem{ev: ev, to: identity, replay: true, asked: true})
	}
}

// resendRecent sends again, to everyone, what was sent within the resend window before the
// connection was resumed.
func (r *Room) resendRecent() {
	cutoff := time.Now().Add(-r.o.resendWindow)
	r.mu.Lock()
	var from int64
	for _, m := range r.sentAt {
		if m.at.After(cutoff) {
			from = m.seq
			break
		}
	}
	r.mu.Unlock()
	if from == 0 {
		return
	}
	evs := r.eventsFrom(from)
	r.stats.replays.Add(1)
	r.log.Info("resending recent events after a resume", "from", from, "count", len(evs))
	for _, ev := range evs {
		r.out.push(outItem{ev: ev, replay: true})
	}
}

func (r *Room) markSent(seq int64) {
	if seq <= 0 {
		return
	}
	now := time.Now()
	cutoff := now.Add(-r.o.resendWindow)
	r.mu.Lock()
	defer r.mu.Unlock()
	i := 0
	for i < len(r.sentAt) && r.sentAt[i].at.Before(cutoff) {
		i++
	}
	r.sentAt = append(r.sentAt[i:], sentMark{seq: seq, at: now})
}

// sendLoop sends queued events in order. An event that cannot be sent (the bot is
// reconnecting) is retried once the connection is back, so nothing is lost or reordered.
func (r *Room) sendLoop(ctx context.Context) {
	for {
		it, ok := r.out.pop(ctx)
		if !ok {
			return
		}
		if !r.sendOne(ctx, it) {
			return
		}
	}
}

// sendOne sends one event, retrying until it is sent (true) or ctx ends (false); either way the
// queue is told the event is settled, so flush sees the queue drain.
func (r *Room) sendOne(ctx context.Context, it outItem) bool {
	defer r.out.settle()
	for {
		lk, err := r.conn.waitConnected(ctx)
		if err != nil {
			return false
		}
		if err = r.send(lk, it); err == nil {
			return true
		}
		r.log.Warn("send event", "seq", it.ev.Seq, "event", it.ev.Event.String(), "err", err)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// recipient is one participant an event is addressed to: its identity (the data packet's
// destination) and its connection's participant id (the sent ledger's key).
type recipient struct{ identity, sid string }

// audiences returns the participants that get the whole event and those that get the
// candidate's view.
func audiences(lk *lksdk.Room, book *RoleBook, only string) (examiners, candidates []recipient) {
	for _, rp := range lk.GetRemoteParticipants() {
		if only != "" && rp.Identity() != only {
			continue
		}
		switch book.Role(rp) {
		case RoleExaminer:
			examiners = append(examiners, recipient{rp.Identity(), rp.SID()})
		case RoleCandidate:
			candidates = append(candidates, recipient{rp.Identity(), rp.SID()})
		}
	}
	return examiners, candidates
}

func (r *Room) send(lk *lksdk.Room, it outItem) error {
	if it.speech != nil {
		return r.sendSpeech(lk, it.speech)
	}
	if it.receipt != nil {
		return r.sendReceipt(lk, it.to, it.receipt)
	}
	examiners, candidates := r.recipients(lk, it.to)
	ev := it.ev
	if ev.Seq == 0 {
		candidates = nil // out-of-band reports are for examiners only
	}
	if it.replay && it.to != "" && !it.asked {
		// A join replay sends each connection only what it has not been sent (sentLedger).
		examiners, candidates = r.unsent(ev.Seq, examiners), r.unsent(ev.Seq, candidates)
	}
	if len(examiners) > 0 {
		if err := r.sendEnvelope(lk, ev, identities(examiners)); err != nil {
			return err
		}
	}
	if len(candidates) > 0 {
		if view, ok := runtime.CandidateView(ev); ok {
			if err := r.sendEnvelope(lk, view, identities(candidates)); err != nil {
				return err
			}
		}
	}
	r.sent.mark(ev.Seq, sids(examiners))
	r.sent.mark(ev.Seq, sids(candidates))
	r.stats.eventsSent.Add(1)
	if !it.replay {
		r.markSent(ev.Seq)
	}
	return nil
}

// recipients are the examiners and the candidates in the room (only: the one participant of
// that identity), those the server has not announced yet included (serverview.go).
func (r *Room) recipients(lk *lksdk.Room, only string) (examiners, candidates []recipient) {
	examiners, candidates = audiences(lk, r.roles, only)
	for _, p := range r.earlyParticipants(lk) {
		if only != "" && p.Identity != only {
			continue
		}
		switch p.Role {
		case RoleExaminer:
			examiners = append(examiners, recipient{p.Identity, p.SID})
		case RoleCandidate:
			candidates = append(candidates, recipient{p.Identity, p.SID})
		}
	}
	return examiners, candidates
}

// unsent keeps the recipients whose connection has not been sent seq.
func (r *Room) unsent(seq int64, to []recipient) []recipient {
	out := to[:0]
	for _, p := range to {
		if !r.sent.has(p.sid, seq) {
			out = append(out, p)
		}
	}
	return out
}

func identities(to []recipient) []string {
	out := make([]string, len(to))
	for i, p := range to {
		out[i] = p.identity
	}
	return out
}

func sids(to []recipient) []string {
	out := make([]string, len(to))
	for i, p := range to {
		out[i] = p.sid
	}
	return out
}

func (r *Room) sendEnvelope(lk *lksdk.Room, ev runtime.Event, to []string) error {
	data, err := encodeRoomEvent(ev)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", ev.Event, err)
	}
	if len(data) > MaxEventPacket {
		// Sending it would fail every time and block the queue; the examiners' console reads
		// the same event from the session store.
		r.stats.oversize.Add(1)
		r.log.Error("event too large for a data packet; not sent to the room", "seq", ev.Seq,
			"event", ev.Event.String(), "bytes", len(data), "err", ErrEventTooLarge)
		return nil
	}
	err = lk.LocalParticipant.PublishDataPacket(lksdk.UserData(data),
		lksdk.WithDataPublishTopic(TopicEvents),
		lksdk.WithDataPublishReliable(true),
		lksdk.WithDataPublishDestination(to))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotConnected, err)
	}
	r.stats.packetsSent.Add(1)
	return nil
}

// flush waits until every queued event has been handed to the data channel, the bot is not
// connected, or d has passed: it waits on the queue draining and on the connection's state
// changing, not on a poll.
func (r *Room) flush(d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		state, changed := r.conn.stateChange()
		idle, drained := r.out.drainState()
		if idle || state != StateConnected {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-drained:
		}
	}
	if r.conn.State() == StateConnected {
		// The last packets are in the data channel's buffer; leaving at once would drop them
		// with the transport.
		time.Sleep(100 * time.Millisecond)
	}
}
