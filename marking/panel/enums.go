package panel

import "fmt"

// Rejection is why one mark of a member was not accepted.
type Rejection int

// Rejections. The zero value is unknown.
const (
	RejectUnknown Rejection = iota
	// RejectUncited: the rationale cites no segment.
	RejectUncited
	// RejectUnknownSegment: a cited segment id is not in the transcript.
	RejectUnknownSegment
	// RejectUnknownLevel: the level is not one of the criterion's levels.
	RejectUnknownLevel
	// RejectUnknownCriterion: the mark names a criterion the scheme does not have.
	RejectUnknownCriterion
	// RejectDuplicate: a second mark for a criterion already marked in the same reply.
	RejectDuplicate
	// RejectNotCandidate: a cited segment is the examiner's, not the candidate's: only what
	// the candidate said is evidence.
	RejectNotCandidate
)

func (r Rejection) String() string {
	switch r {
	case RejectUncited:
		return "uncited"
	case RejectUnknownSegment:
		return "unknown_segment"
	case RejectUnknownLevel:
		return "unknown_level"
	case RejectUnknownCriterion:
		return "unknown_criterion"
	case RejectDuplicate:
		return "duplicate"
	case RejectNotCandidate:
		return "not_candidate"
	default:
		return fmt.Sprintf("Rejection(%d)", int(r))
	}
}

// MarshalText writes the rejection's word, as JSON reports carry it.
func (r Rejection) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Round is one of the panel's two rounds.
type Round int

// Rounds. The zero value is unknown.
const (
	RoundUnknown  Round = iota
	RoundFirst          // independent marking
	RoundRevision       // after seeing the others
)

func (r Round) String() string {
	switch r {
	case RoundFirst:
		return "first"
	case RoundRevision:
		return "revision"
	default:
		return fmt.Sprintf("Round(%d)", int(r))
	}
}

// MarshalText writes the round's word.
func (r Round) MarshalText() ([]byte, error) { return []byte(r.String()), nil }
