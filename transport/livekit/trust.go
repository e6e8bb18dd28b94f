package livekit

import (
	"fmt"
	"sync"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// A participant's role is trusted only when the server vouches for it and the participant cannot
// change it: the role attribute must come with a permission that does not allow updating the
// participant's own metadata and attributes. A token that grants canUpdateOwnMetadata (as tokens
// made by other tools often do) lets its holder call SetAttributes and name itself examiner or
// bot; such a participant has no role at all, whatever its attributes say.

// Security warnings (runtime.CodeUntrustedParticipant, CodeForgedEvent, CodeEventGap) are
// system_error events examiners see when a participant is refused a role or something arrives
// that the server did not vouch for: warnings about the room, never exam data.

// RoleVerdict is what VouchedRole decided about one participant.
type RoleVerdict int

// Verdicts.
const (
	// VerdictTrusted: the role attribute is the server's and cannot change.
	VerdictTrusted RoleVerdict = iota
	// VerdictNoRole: no (or an unrecognised) role attribute.
	VerdictNoRole
	// VerdictSelfUpdatable: the participant may change its own attributes, so any role it
	// carries is ignored.
	VerdictSelfUpdatable
	// VerdictNoPermission: the server sent no permission, so nothing can be vouched for.
	VerdictNoPermission
)

func (v RoleVerdict) String() string {
	switch v {
	case VerdictTrusted:
		return "trusted"
	case VerdictNoRole:
		return "no-role"
	case VerdictSelfUpdatable:
		return "self-updatable"
	case VerdictNoPermission:
		return "no-permission"
	default:
		return "unknown"
	}
}

// VouchedRole is the one rule for a participant's role, used by everything that reads a role:
// the role attribute counts only when perm (the permission the server delivered with the
// participant's info) forbids updating its own metadata. A participant with a role attribute
// but the right to change it gets RoleUnknown and VerdictSelfUpdatable.
func VouchedRole(attrs map[string]string, perm *lkproto.ParticipantPermission) (Role, RoleVerdict) {
	claimed := roleFromAttributes(attrs)
	switch {
	case perm == nil:
		return RoleUnknown, VerdictNoPermission
	case perm.GetCanUpdateMetadata():
		return RoleUnknown, VerdictSelfUpdatable
	case claimed == RoleUnknown:
		return RoleUnknown, VerdictNoRole
	}
	return claimed, VerdictTrusted
}

// participantInfo is what VouchedRole needs from an SDK participant (remote or local).
type participantInfo interface {
	SID() string
	Identity() string
	Attributes() map[string]string
	Permissions() *lkproto.ParticipantPermission
}

// UntrustedParticipant describes a participant refused a role because it could change its own
// attributes, for the log and the examiners' security warning.
type UntrustedParticipant struct {
	Identity string
	SID      string
	Claimed  string // the role attribute it carried when first seen, possibly empty
	Verdict  RoleVerdict
}

func (u UntrustedParticipant) String() string {
	claim := "no role"
	if u.Claimed != "" {
		claim = fmt.Sprintf("role %q", u.Claimed)
	}
	return fmt.Sprintf("participant %q carries %s but its token lets it change its own attributes (%s): it is given no role; "+
		"mint tokens with `examtui token`, which never grants canUpdateOwnMetadata", u.Identity, claim, u.Verdict)
}

// RoleBook fixes each participant's role when it is first seen (by the server's participant
// SID, which a rejoin with a new token replaces) and keeps it: later attribute changes are
// ignored. A participant whose permission later allows updating its own attributes loses its
// role. The zero value is not usable; use NewRoleBook.
type RoleBook struct {
	mu          sync.Mutex
	fixed       map[string]Role
	warned      map[string]bool
	onUntrusted func(UntrustedParticipant)
}

// NewRoleBook returns an empty book; onUntrusted (may be nil) is told once per participant that
// claims a role it could have given itself.
func NewRoleBook(onUntrusted func(UntrustedParticipant)) *RoleBook {
	return &RoleBook{fixed: map[string]Role{}, warned: map[string]bool{}, onUntrusted: onUntrusted}
}

// Role returns the participant's vouched role, fixing it on first sight. A nil participant has
// no role.
func (b *RoleBook) Role(p participantInfo) Role {
	if p == nil {
		return RoleUnknown
	}
	if rp, ok := p.(*lksdk.RemoteParticipant); ok && rp == nil {
		return RoleUnknown
	}
	attrs, perm := p.Attributes(), p.Permissions()
	current, verdict := VouchedRole(attrs, perm)
	key := p.SID()
	if key == "" {
		key = "identity:" + p.Identity()
	}
	b.mu.Lock()
	role, seen := b.fixed[key]
	if !seen {
		role = current
		b.fixed[key] = role
	}
	if verdict == VerdictSelfUpdatable {
		role = RoleUnknown // the right to change attributes was granted later: revoke
	}
	warn := verdict == VerdictSelfUpdatable && !b.warned[key]
	if warn {
		b.warned[key] = true
	}
	fn := b.onUntrusted
	b.mu.Unlock()
	if warn && fn != nil {
		fn(UntrustedParticipant{Identity: p.Identity(), SID: p.SID(), Claimed: attrs[RoleAttribute], Verdict: verdict})
	}
	return role
}
