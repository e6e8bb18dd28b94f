package panel

import "errors"

var (
	// ErrInvalid is a panel or input that cannot run: no members, a member with no model or
	// server, a criterion with no levels, a transcript with no segments.
	ErrInvalid = errors.New("panel: invalid")
	// ErrNoMarks is a panel where no member returned a single accepted mark.
	ErrNoMarks = errors.New("panel: no member returned a mark")
	// ErrNoCall is a member's reply with no report_marks call in it.
	ErrNoCall = errors.New("panel: the reply has no report_marks call")
	// ErrBadArguments is a report_marks call whose arguments are not the schema's JSON.
	ErrBadArguments = errors.New("panel: report_marks arguments are not valid")
)

// ErrNotConfigured is a panel with no model to ask: no members in the config file and no mark
// stage endpoint.
var ErrNotConfigured = errors.New("panel: not configured")
