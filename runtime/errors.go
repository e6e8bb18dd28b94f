package runtime

import "errors"

// Named errors.
var (
	ErrUnknownEvent       = errors.New("unknown event type")
	ErrNilExam            = errors.New("runtime: exam is nil")
	ErrNilExaminer        = errors.New("runtime: examiner is nil")
	ErrInvalidExam        = errors.New("runtime: exam cannot be run")
	ErrInvalidOption      = errors.New("runtime: invalid option")
	ErrInvalidTransition  = errors.New("runtime: invalid exam state transition")
	ErrNotStarted         = errors.New("runtime: exam not started")
	ErrAlreadyStarted     = errors.New("runtime: exam already started")
	ErrExamOver           = errors.New("runtime: exam is over")
	ErrClosed             = errors.New("runtime: controller closed")
	ErrSink               = errors.New("runtime: event sink failed")
	ErrInvalidAdmin       = errors.New("runtime: invalid admin instruction")
	ErrInvalidControl     = errors.New("runtime: invalid control action")
	ErrInvalidTurn        = errors.New("runtime: invalid turn")
	ErrMalformedArguments = errors.New("runtime: malformed report_observation arguments")
	ErrMissingField       = errors.New("runtime: required field missing")
	ErrInvalidField       = errors.New("runtime: invalid field")
	ErrResume             = errors.New("runtime: cannot resume from event log")
	ErrPaused             = errors.New("runtime: exam paused by the examiner")
	ErrNoToolCall         = errors.New("runtime: examiner made no report_observation call")
	ErrNothingQueued      = errors.New("runtime: no queued admin instruction to promote")
	ErrInvalidEnv         = errors.New("runtime: invalid environment setting")
	ErrUnknownValue       = errors.New("runtime: unknown value")
	ErrEmptySummary       = errors.New("runtime: the summary is empty")
	// ErrLanguageChange is returned for an edit of a running exam's language (it wraps
	// ErrSpecReload): the candidate has been addressed, heard and recognised in one language.
	ErrLanguageChange = errors.New("the exam's language cannot change during a session")
)

// ErrInvalidPresence is returned for a presence change without a candidate identity.
var ErrInvalidPresence = errors.New("runtime: invalid candidate presence")
