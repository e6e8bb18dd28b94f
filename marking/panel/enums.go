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

// UnmarshalText reads the round's word (a stored run).
func (r *Round) UnmarshalText(b []byte) error { return unmarshalEnum(b, r, RoundRevision) }

// UnmarshalText reads the rejection's word (a stored run).
func (r *Rejection) UnmarshalText(b []byte) error { return unmarshalEnum(b, r, RejectNotCandidate) }

// unmarshalEnum sets *v to the value up to last whose String is b.
func unmarshalEnum[E interface {
	~int
	String() string
}](b []byte, v *E, last E) error {
	for e := E(0); e <= last; e++ {
		if e.String() == string(b) {
			*v = e
			return nil
		}
	}
	return fmt.Errorf("%w: unknown value %q", ErrInvalid, b)
}
