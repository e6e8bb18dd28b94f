package livekit

import "fmt"

// RoleAttribute is the participant attribute, set in the token by whoever holds the API secret,
// that names a participant's part in the exam.
const RoleAttribute = "examtui.role"

// Role is a participant's part in the exam.
type Role int

// Roles. RoleUnknown is what a participant without (or with an unrecognised) role attribute has:
// it is sent nothing and nothing it sends is accepted.
const (
	RoleUnknown Role = iota
	RoleBot
	RoleCandidate
	RoleExaminer
)

// Roles lists the roles a token can carry.
var Roles = []Role{RoleBot, RoleCandidate, RoleExaminer}

func (r Role) String() string {
	switch r {
	case RoleBot:
		return "bot"
	case RoleCandidate:
		return "candidate"
	case RoleExaminer:
		return "examiner"
	default:
		return "unknown"
	}
}

// ParseRole parses the value of the role attribute.
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if r.String() == s {
			return r, nil
		}
	}
	return RoleUnknown, fmt.Errorf("%w: %q (want bot, candidate or examiner)", ErrUnknownRole, s)
}

// roleFromAttributes reads the role from attributes as the server delivered them.
func roleFromAttributes(attrs map[string]string) Role {
	r, err := ParseRole(attrs[RoleAttribute])
	if err != nil {
		return RoleUnknown
	}
	return r
}
