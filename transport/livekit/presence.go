package livekit

import (
	"context"
	"slices"
	"sync"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// CandidatePresence is a candidate arriving in or leaving the room. Only participants whose
// candidate role the server vouches for (VouchedRole) are reported: a participant that gave
// itself the role is never a candidate.
type CandidatePresence struct {
	Identity string
	SID      string // the server's participant id of this connection
	// Present is true when the candidate arrived, false when it left.
	Present bool
	// Reason says why it left, from the server's disconnect reason ("left the room",
	// "connection lost", ...); empty on arrival.
	Reason string
}

// presencePoll is how often the room re-reads who is there besides the SDK's callbacks: a
// candidate who rejoins under the same identity before the server noticed the old connection
// drop is only visible as a new participant id.
const presencePoll = 500 * time.Millisecond

// presenceGrace is how long after the bot (re)connects a candidate it cannot see is given to
// come back before being reported gone: after a server restart everyone reconnects, the bot
// not necessarily last. A leave the server announced is reported at once.
const presenceGrace = 10 * time.Second

// presenceTracker compares the vouched candidates in the room with those last reported, and
// queues the differences for the handler goroutine (in order with the candidate's messages).
type presenceTracker struct {
	mu     sync.Mutex
	known  map[string]string // identity → participant id of candidates reported present
	seenOn map[string]uint64 // identity → the epoch in which that participant id was seen
	// epoch counts the bot's own connection interruptions (a new connection, the SDK's
	// reconnection inside one): a candidate's new participant id within one epoch is their
	// client rejoining; across epochs it may be everyone reconnecting after a server restart.
	epoch   uint64
	reasons map[string]string // participant id → why it left, from the disconnect callback
	kick    chan struct{}
	gen     uint64    // the bot's connection seen up at the last reconciliation; 0 if it was not up
	since   time.Time // since when it has been up
}

func (t *presenceTracker) init() {
	t.known = map[string]string{}
	t.seenOn = map[string]uint64{}
	t.reasons = map[string]string{}
	t.kick = make(chan struct{}, 1)
}

// expect records candidates the exam's log says are in the room (a resumed session) as known,
// under no participant id yet: one the bot finds in the room is the same stay (no news), one it
// cannot find once presenceGrace has passed is reported gone, as any candidate who vanished.
func (t *presenceTracker) expect(ids []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range ids {
		if _, ok := t.known[id]; !ok && id != "" {
			t.known[id] = ""
		}
	}
	t.poke()
}

// interrupted records that the bot's own connection was interrupted (a new epoch).
func (t *presenceTracker) interrupted() {
	t.mu.Lock()
	t.epoch++
	t.mu.Unlock()
	t.poke()
}

// poke asks for a reconciliation soon, without blocking.
func (t *presenceTracker) poke() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// left records why a candidate left (from the SDK's disconnect callback); record is false for
// other participants and while the bot itself is not connected. The SDK reports every
// participant gone, with no reason, when the bot's own connection restarts: that is no news
// about them.
func (t *presenceTracker) left(rp *lksdk.RemoteParticipant, record bool) {
	if rp == nil || !record || rp.DisconnectReason() == lkproto.DisconnectReason_UNKNOWN_REASON {
		t.poke()
		return
	}
	t.mu.Lock()
	t.reasons[rp.SID()] = leaveReason(rp.DisconnectReason())
	t.mu.Unlock()
	t.poke()
}

// watchPresence reconciles the candidates' presence whenever participants change, and every
// presencePoll, until ctx ends.
func (r *Room) watchPresence(ctx context.Context) {
	tick := time.NewTicker(presencePoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-r.presence.kick:
		}
		r.reconcilePresence()
	}
}

// reconcilePresence reports candidates who left and arrived since the last call. It does nothing
// while the bot itself is not connected: the SDK drops every participant when the bot's own
// connection restarts, which is no news about the candidate. A candidate found missing once the
// bot is back is reported as having left.
func (r *Room) reconcilePresence() {
	gen := r.conn.currentGen()
	lk := r.conn.room()
	if lk == nil || r.conn.State() != StateConnected {
		r.presence.mu.Lock()
		r.presence.gen = 0 // the grace starts again when the bot is back
		r.presence.mu.Unlock()
		return
	}
	current := map[string]string{}
	for _, rp := range lk.GetRemoteParticipants() {
		if r.roles.Role(rp) == RoleCandidate {
			current[rp.Identity()] = rp.SID()
		}
	}
	// A candidate the server API listed before the SDK announced them (serverview.go) is in the
	// room already: the exam starts for them, so their arrival is recorded now, not when the
	// announcement comes (the same SID then).
	r.server.mu.Lock()
	for id, p := range r.server.early {
		if _, ok := current[id]; !ok && r.roles.Role(serverParticipant{p}) == RoleCandidate {
			current[id] = p.GetSid()
		}
	}
	r.server.mu.Unlock()
	if r.conn.State() != StateConnected || r.conn.currentGen() != gen {
		return // the connection changed while the participants were read
	}
	t := &r.presence
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gen != gen { // a new connection, or the same one back from a restart
		t.gen, t.since = gen, time.Now()
		t.epoch++
	}
	epoch := t.epoch
	settled := time.Since(t.since) >= presenceGrace
	var changes []CandidatePresence
	var rejoined []string
	for _, id := range sortedKeys(t.known) {
		sid := t.known[id]
		now, ok := current[id]
		if ok && now == sid {
			continue
		}
		reason, announced := t.reasons[sid]
		switch {
		case ok && !announced && sid != "" && t.seenOn[id] == epoch:
			// A new participant id while the bot stayed connected: the candidate's
			// client died and joined again before the server noticed (it replaces the old
			// participant without announcing a leave). That is a leave and a return, so the
			// exam pauses and resumes, the question is asked again, and the new connection
			// gets the history.
			r.log.Info("candidate rejoined under a new participant id", "identity", id, "sid", now, "previous", sid)
			delete(t.reasons, sid)
			t.known[id], t.seenOn[id] = now, epoch
			changes = append(changes,
				CandidatePresence{Identity: id, SID: sid, Reason: leaveReason(lkproto.DisconnectReason_DUPLICATE_IDENTITY)},
				CandidatePresence{Identity: id, SID: now, Present: true})
			rejoined = append(rejoined, id)
			continue
		case ok && !announced:
			// Back under a new participant id after the bot's own connection was interrupted
			// (a server restart, the bot's reconnection), or found where a resumed session's log
			// left them: the same stay in the room.
			r.log.Info("candidate back under a new participant id", "identity", id, "sid", now, "previous", sid)
			t.known[id], t.seenOn[id] = now, epoch
			continue
		case !announced && !settled:
			continue // the bot has just (re)connected: give them presenceGrace to show up
		case !announced && sid == "":
			reason = "not in the room when the exam resumed"
		case !announced:
			reason = "no longer in the room"
		}
		delete(t.reasons, sid)
		delete(t.known, id)
		delete(t.seenOn, id)
		changes = append(changes, CandidatePresence{Identity: id, SID: sid, Reason: reason})
	}
	for _, id := range sortedKeys(current) {
		if _, ok := t.known[id]; ok {
			continue
		}
		sid := current[id]
		t.known[id], t.seenOn[id] = sid, epoch
		delete(t.reasons, sid)
		changes = append(changes, CandidatePresence{Identity: id, SID: sid, Present: true})
	}
	for _, id := range rejoined {
		r.replayTo(id, 1) // the SDK announces no arrival for a replaced participant (arrived)
	}
	for i := range changes {
		c := changes[i]
		r.log.Info("candidate presence", "identity", c.Identity, "sid", c.SID, "present", c.Present, "reason", c.Reason)
		r.in.push(inbound{presence: &c})
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// leaveReason says in a few words why the server disconnected a participant.
func leaveReason(r lkproto.DisconnectReason) string {
	switch r {
	case lkproto.DisconnectReason_CLIENT_INITIATED:
		return "left the room"
	case lkproto.DisconnectReason_DUPLICATE_IDENTITY:
		return "replaced by a new connection"
	case lkproto.DisconnectReason_PARTICIPANT_REMOVED, lkproto.DisconnectReason_USER_REJECTED:
		return "removed from the room"
	case lkproto.DisconnectReason_SERVER_SHUTDOWN, lkproto.DisconnectReason_ROOM_DELETED,
		lkproto.DisconnectReason_ROOM_CLOSED, lkproto.DisconnectReason_MIGRATION:
		return "the room server ended the connection"
	case lkproto.DisconnectReason_SIGNAL_CLOSE, lkproto.DisconnectReason_CONNECTION_TIMEOUT,
		lkproto.DisconnectReason_MEDIA_FAILURE, lkproto.DisconnectReason_STATE_MISMATCH,
		lkproto.DisconnectReason_JOIN_FAILURE:
		return "connection lost"
	}
	return "disconnected"
}
