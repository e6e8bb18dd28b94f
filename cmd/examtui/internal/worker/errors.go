package worker

import "errors"

// Named errors. A job that fails with one of these is reported to the server with its text.
var (
	ErrBadMetadata   = errors.New("bad dispatch metadata")
	ErrUnknownSpec   = errors.New("unknown exam spec")
	ErrBadSpec       = errors.New("exam spec has errors")
	ErrExamEnded     = errors.New("the exam in this room has ended")
	ErrExamElsewhere = errors.New("the exam in this room runs on another worker")
	ErrInvalidConfig = errors.New("invalid worker configuration")
)
