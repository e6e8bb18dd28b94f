package spec

import "errors"

// Named errors.
var (
	// ErrInvalid wraps every failed compilation: the diagnostics hold at least one error.
	ErrInvalid = errors.New("spec: invalid exam specification")
	// ErrUnknownTarget is returned for an export target that does not exist.
	ErrUnknownTarget = errors.New("spec: unknown export target")
	// ErrNilExam is returned when an export is asked for a nil exam.
	ErrNilExam = errors.New("spec: exam is nil")
	// ErrNilSpec is returned when CompileSpec is given a nil spec.
	ErrNilSpec = errors.New("spec: spec is nil")

	// ErrTooLarge: a source over MaxSourceBytes was not read.
	ErrTooLarge = errors.New("spec: source too large")
)
