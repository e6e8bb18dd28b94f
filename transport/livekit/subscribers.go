package livekit

import (
	"slices"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// allowListeners tells the server who may subscribe to the bot's tracks (its voice): the
// participants whose candidate or examiner role the server vouches for, by identity, so that a
// candidate's new connection (a rejoin) hears at once. Anyone else in the room (a participant
// without a role, one that gave itself a role) is refused by the server. It is sent before the
// voice is published and again whenever participants arrive or leave; the SDK sends it again
// after its own reconnection.
func (r *Room) allowListeners(lk *lksdk.Room) {
	if lk == nil {
		return
	}
	var ids []string
	for _, rp := range lk.GetRemoteParticipants() {
		if role := r.roles.Role(rp); role == RoleCandidate || role == RoleExaminer {
			ids = append(ids, rp.Identity())
		}
	}
	for _, p := range r.earlyParticipants(lk) {
		if p.Role == RoleCandidate || p.Role == RoleExaminer {
			ids = append(ids, p.Identity)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	r.mu.Lock()
	same := r.listenersSent && slices.Equal(ids, r.listeners)
	r.listeners, r.listenersSent = ids, true
	r.mu.Unlock()
	if same {
		return
	}
	perm := &lkproto.SubscriptionPermission{AllParticipants: false}
	for _, id := range ids {
		perm.TrackPermissions = append(perm.TrackPermissions, &lkproto.TrackPermission{ParticipantIdentity: id, AllTracks: true})
	}
	r.log.Debug("bot's tracks allowed to", "identities", ids)
	lk.LocalParticipant.SetSubscriptionPermission(perm)
}
