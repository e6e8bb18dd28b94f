package livekit

import (
	"context"
	"sync"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// The server announces a participant who publishes no track to the others only on its
// participant batch, every 3 s (livekit-server pkg/rtc/room.go, subscriberUpdateInterval); one
// who publishes, at once. A candidate who only types would wait up to 3 s for the bot to
// notice them and start. A bot that has the server's API key and secret asks the server
// instead, through the server API (RoomService ListParticipants and GetParticipant: reads, no
// admin write), while it waits for a candidate and when a packet comes from someone it has not
// been told about. The role comes from the ParticipantInfo the server returns, by the same rule
// as every other role (VouchedRole, fixed per participant SID in the RoleBook), so the trust
// model is unchanged: a participant whose token lets it change its own attributes gets no role
// here either.

// serverPollEvery is how often a bot waiting for its candidate asks the server who is in the
// room; after serverPollFastFor of waiting it asks every serverPollSlow, so that bots waiting
// long (an exam dispatched well before its candidate) cost the server little.
const (
	serverPollEvery   = 150 * time.Millisecond
	serverPollFastFor = time.Minute
	serverPollSlow    = time.Second
)

// serverQueryTimeout bounds one server API call.
const serverQueryTimeout = 2 * time.Second

// serverView is what the bot learnt from the server API about participants the SDK has not
// announced yet. An entry goes when the SDK announces the participant (it then takes over),
// when the participant leaves, or when a later query no longer lists it.
type serverView struct {
	client *lksdk.RoomServiceClient // nil: no API credentials, the view stays empty

	mu      sync.Mutex
	early   map[string]*lkproto.ParticipantInfo // by identity
	arrived int64                               // participants first learnt of this way
	warned  bool                                // a failed query was logged

	waitingSince time.Time // when the current wait for a candidate began; zero: not waiting
	lastAsked    time.Time
}

// nextAsk is how long a bot waiting for its candidate should wait before asking the server
// again (WaitCandidate may be called many times in one wait).
func (v *serverView) nextAsk(now time.Time) time.Duration {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.waitingSince.IsZero() {
		v.waitingSince = now
	}
	every := serverPollEvery
	if now.Sub(v.waitingSince) > serverPollFastFor {
		every = serverPollSlow
	}
	return max(0, every-now.Sub(v.lastAsked))
}

// stopWaiting ends the current wait: the next one polls fast again.
func (v *serverView) stopWaiting() {
	v.mu.Lock()
	v.waitingSince = time.Time{}
	v.mu.Unlock()
}

func newServerView(cfg Config) *serverView {
	v := &serverView{early: map[string]*lkproto.ParticipantInfo{}}
	if cfg.APIKey != "" && cfg.APISecret != "" {
		v.client = lksdk.NewRoomServiceClient(cfg.URL, cfg.APIKey, cfg.APISecret)
	}
	return v
}

// serverParticipant gives a server's ParticipantInfo the shape the RoleBook reads.
type serverParticipant struct{ p *lkproto.ParticipantInfo }

func (s serverParticipant) SID() string                                 { return s.p.GetSid() }
func (s serverParticipant) Identity() string                            { return s.p.GetIdentity() }
func (s serverParticipant) Attributes() map[string]string               { return s.p.GetAttributes() }
func (s serverParticipant) Permissions() *lkproto.ParticipantPermission { return s.p.GetPermission() }

// askServer lists the room's participants through the server API and takes in those the SDK
// has not announced. It reports whether it learnt of anyone new.
func (r *Room) askServer(ctx context.Context) bool {
	v := r.server
	lk := r.conn.room()
	if v.client == nil || lk == nil || lk.Name() == "" {
		return false
	}
	v.mu.Lock()
	v.lastAsked = time.Now()
	v.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, serverQueryTimeout)
	defer cancel()
	res, err := v.client.ListParticipants(ctx, &lkproto.ListParticipantsRequest{Room: lk.Name()})
	if err != nil {
		r.queryFailed(ctx, err)
		return false
	}
	return r.takeServerList(lk, res.GetParticipants(), true)
}

// askServerFor looks one participant up through the server API (a packet came from someone the
// SDK has not announced).
func (r *Room) askServerFor(ctx context.Context, identity string) bool {
	v := r.server
	lk := r.conn.room()
	if v.client == nil || lk == nil || lk.Name() == "" || identity == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, serverQueryTimeout)
	defer cancel()
	p, err := v.client.GetParticipant(ctx, &lkproto.RoomParticipantIdentity{Room: lk.Name(), Identity: identity})
	if err != nil {
		r.queryFailed(ctx, err)
		return false
	}
	return r.takeServerList(lk, []*lkproto.ParticipantInfo{p}, false)
}

func (r *Room) queryFailed(ctx context.Context, err error) {
	if ctx.Err() != nil && r.ctx.Err() != nil {
		return // closing
	}
	v := r.server
	v.mu.Lock()
	first := !v.warned
	v.warned = true
	v.mu.Unlock()
	if first {
		r.log.Warn("asking the server who is in the room failed; waiting for its announcements", "err", err)
	} else {
		r.log.Debug("server participant query failed", "err", err)
	}
}

// takeServerList records the participants the server listed that the SDK does not know yet;
// complete says the list is the whole room, so entries missing from it have left.
func (r *Room) takeServerList(lk *lksdk.Room, ps []*lkproto.ParticipantInfo, complete bool) bool {
	self := lk.LocalParticipant.Identity()
	v := r.server
	var fresh []*lkproto.ParticipantInfo
	listed := map[string]bool{}
	v.mu.Lock()
	for _, p := range ps {
		id := p.GetIdentity()
		if id == "" || id == self || p.GetState() == lkproto.ParticipantInfo_DISCONNECTED {
			continue
		}
		listed[id] = true
		if lk.GetParticipantByIdentity(id) != nil {
			delete(v.early, id) // the SDK knows them: its view is the one that counts
			continue
		}
		if old, ok := v.early[id]; ok && old.GetSid() == p.GetSid() {
			continue
		}
		v.early[id] = p
		v.arrived++
		fresh = append(fresh, p)
	}
	if complete {
		for id := range v.early {
			if !listed[id] {
				delete(v.early, id)
			}
		}
	}
	v.mu.Unlock()
	if len(fresh) > 0 {
		r.allowListeners(lk)
	}
	for _, p := range fresh {
		role := r.roles.Role(serverParticipant{p})
		r.log.Info("participant present", "identity", p.GetIdentity(), "role", role.String(), "via", "server query")
		if role == RoleCandidate || role == RoleExaminer {
			r.replayTo(p.GetIdentity(), 1)
		}
	}
	if len(fresh) > 0 || complete {
		r.notifyChanged()
	}
	return len(fresh) > 0
}

// forgetEarly drops what the server API said about a participant the SDK now announces, or
// who left.
func (r *Room) forgetEarly(identity string) {
	r.server.mu.Lock()
	delete(r.server.early, identity)
	r.server.mu.Unlock()
}

// earlyParticipants are the participants known from the server API only, with their vouched
// roles.
func (r *Room) earlyParticipants(lk *lksdk.Room) []Participant {
	r.server.mu.Lock()
	ps := make([]*lkproto.ParticipantInfo, 0, len(r.server.early))
	for _, p := range r.server.early {
		ps = append(ps, p)
	}
	r.server.mu.Unlock()
	var out []Participant
	for _, p := range ps {
		if lk != nil && lk.GetParticipantByIdentity(p.GetIdentity()) != nil {
			continue // announced meanwhile
		}
		out = append(out, Participant{Identity: p.GetIdentity(), Role: r.roles.Role(serverParticipant{p}), SID: p.GetSid()})
	}
	return out
}

// earlyRole is the vouched role of a participant known from the server API only.
func (r *Room) earlyRole(identity string) (Role, bool) {
	r.server.mu.Lock()
	p, ok := r.server.early[identity]
	r.server.mu.Unlock()
	if !ok {
		return RoleUnknown, false
	}
	return r.roles.Role(serverParticipant{p}), true
}

func (r *Room) serverArrivals() int64 {
	r.server.mu.Lock()
	defer r.server.mu.Unlock()
	return r.server.arrived
}
