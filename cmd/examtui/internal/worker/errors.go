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
	// ErrRejected wraps why a worker refused a dispatch before any exam opened (bad metadata,
	// an unknown or invalid spec): its text, RejectedPrefix first, is the job's failure reason,
	// which `examtui dispatch` and the control room's waiting list report.
	ErrRejected = errors.New(RejectedPrefix)
)

// RejectedPrefix starts the failure reason of a job the worker rejected.
const RejectedPrefix = "job rejected"
