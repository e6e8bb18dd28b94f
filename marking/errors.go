package marking

import "errors"

// Named errors.
var (
	ErrNoScheme       = errors.New("the exam has no marking scheme")
	ErrUnknownCrit    = errors.New("unknown criterion")
	ErrUnknownLevel   = errors.New("unknown level")
	ErrNoFinalLevel   = errors.New("criterion has no final level")
	ErrNotLocked      = errors.New("marking is not locked")
	ErrTampered       = errors.New("events or marks changed since the lock")
	ErrNoVariation    = errors.New("agreement undefined: no variation in the levels given")
	ErrTooFewRatings  = errors.New("agreement undefined: too few paired ratings")
	ErrUnequalRatings = errors.New("the two markers' ratings differ in number")
	ErrSessionRunning = errors.New("session has not finished")
	ErrNoJustify      = errors.New("a justification is required")

	ErrNotYou                = errors.New("a marker is who the store says you are")
	ErrOwnSession            = errors.New("a moderator never adjudicates a session they marked")
	ErrTooFewMarkers         = errors.New("the scheme needs more independent markers")
	ErrNeedsInstitutionStore = errors.New("double marking needs the institution store (PostgreSQL): on a local SQLite store every mark is one operating-system account's")
	ErrUnverified            = errors.New("rows do not match their lock")
	ErrNoLMSIdentity         = errors.New("sessions without a roster candidate the LMS can identify")
)
